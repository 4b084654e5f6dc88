package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/zk-claims/zk/workspace"
)

type graphOptions struct {
	root   *rootOptions
	format string
}

func newGraphCmd(root *rootOptions, s *streams) *cobra.Command {
	opts := &graphOptions{root: root}
	cmd := &cobra.Command{
		Use:   "graph",
		Short: "Print the vault's link graph",
		Long: `Print every note and every link between notes and files of the vault.
Links that resolve to nothing are included, their target marked unresolved.

--format json prints {"nodes":[{"id","kind"}],"edges":[...]} where a node's
kind is note, file (an attachment) or unresolved. --format dot prints a
Graphviz digraph (unresolved targets dashed, relations as edge labels).

EXIT STATUS
  0  printed
  2  a usage or runtime error`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runGraph(cmd.Context(), opts, s)
		},
	}
	addFormatFlag(cmd, &opts.format, "output `format`", "json", "dot")
	return cmd
}

type graphNode struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
}

func runGraph(ctx context.Context, opts *graphOptions, s *streams) error {
	w, err := opts.root.open(s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	g, err := w.Graph(ctx)
	if err != nil {
		return err
	}
	notes := g.Notes
	kinds := map[string]string{}
	for _, p := range notes {
		kinds[p] = "note"
	}
	edges := make([]edgeView, 0, len(g.Edges))
	for _, e := range g.Edges {
		v := newEdgeView(e)
		if _, known := kinds[v.To]; !known {
			kinds[v.To] = "file"
			if !v.Resolved {
				kinds[v.To] = "unresolved"
			}
		}
		edges = append(edges, v)
	}
	nodes := make([]graphNode, 0, len(kinds))
	for id, k := range kinds {
		nodes = append(nodes, graphNode{ID: id, Kind: k})
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
	if opts.format == "dot" {
		return writeDot(s.out, nodes, edges)
	}
	return writeGraphJSON(s.out, nodes, edges)
}

// writeGraphJSON prints what writeJSON would of {"nodes": nodes, "edges":
// edges}, an element at a time: writeJSON builds the whole text in memory
// and indents a copy, and a note of 200,000 links made that 340 MB.
func writeGraphJSON(w io.Writer, nodes []graphNode, edges []edgeView) error {
	bw := bufio.NewWriter(w)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("    ", "  ")
	enc.SetEscapeHTML(false)
	array := func(name string, n int, item func(int) any, last bool) error {
		bw.WriteString(`  "` + name + `": [`)
		for i := range n {
			buf.Reset()
			if err := enc.Encode(item(i)); err != nil {
				return err
			}
			if i > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n    ")
			bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
		}
		if n > 0 {
			bw.WriteString("\n  ")
		}
		bw.WriteString("]")
		if !last {
			bw.WriteString(",")
		}
		bw.WriteString("\n")
		return nil
	}
	bw.WriteString("{\n")
	if err := array("nodes", len(nodes), func(i int) any { return nodes[i] }, false); err != nil {
		return err
	}
	if err := array("edges", len(edges), func(i int) any { return edges[i] }, true); err != nil {
		return err
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func writeDot(w io.Writer, nodes []graphNode, edges []edgeView) error {
	fmt.Fprintln(w, "digraph zk {")
	for _, n := range nodes {
		style := ""
		switch n.Kind {
		case "unresolved":
			style = " [style=dashed]"
		case "file":
			style = " [shape=box]"
		}
		fmt.Fprintf(w, "  %s%s;\n", strconv.Quote(n.ID), style)
	}
	for _, e := range edges {
		var attrs []string
		if e.Relation != "" {
			attrs = append(attrs, "label="+strconv.Quote(e.Relation))
		}
		if !e.Resolved {
			attrs = append(attrs, "style=dashed")
		}
		list := ""
		if len(attrs) > 0 {
			list = " [" + strings.Join(attrs, ", ") + "]"
		}
		fmt.Fprintf(w, "  %s -> %s%s;\n", strconv.Quote(e.From), strconv.Quote(e.To), list)
	}
	_, err := fmt.Fprintln(w, "}")
	return err
}
