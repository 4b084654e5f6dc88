package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/view"
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

func runGraph(ctx context.Context, opts *graphOptions, s *streams) error {
	w, err := opts.root.open(ctx, s, workspace.Reading, "")
	if err != nil {
		return err
	}
	defer w.Close()
	if opts.format != "dot" {
		gt, ok, err := w.GraphText(ctx, graphJSON)
		if err != nil {
			return err
		}
		defer gt.Close()
		if ok { // every note read: its edges' text is the graph's
			return writeGraphText(s.out, view.GraphNodesOf(gt.Notes, gt.Others), gt)
		}
	}
	g, err := w.GraphEdges(ctx)
	if err != nil {
		return err
	}
	nodes, edges := view.GraphNodes(g.Files, g.Notes, g.Edges), view.EdgeViews(g.Edges)
	if opts.format == "dot" {
		return writeDot(s.out, nodes, edges)
	}
	return writeGraphJSON(s.out, nodes, edges)
}

// writeGraphJSON prints what writeJSON would of {"nodes": nodes, "edges":
// edges}, an element at a time: writeJSON builds the whole text in memory
// and indents a copy, and a note of 200,000 links made that 340 MB. Each
// element is written field by field as the indenting encoder writes it:
// encoding and indenting 40,000 edges through encoding/json was 40% of an
// unchanged zk graph's CPU (TestWriteGraphJSONIsWriteJSON holds the bytes).
// The edges are walked once, as they are printed.
func writeGraphJSON(w io.Writer, nodes []view.GraphNode, edges iter.Seq[view.Edge]) error {
	bw := bufio.NewWriterSize(w, 64<<10) // 16 MB at 10,000 notes: 256 writes, not 4,000
	bw.WriteString("{\n")
	writeGraphNodes(bw, nodes)
	bw.WriteString(`  "edges": [`)
	var (
		buf  []byte
		from edgeFrom
		n    int
	)
	for e := range edges {
		if n > 0 {
			bw.WriteString(",")
		}
		buf = from.appendEdgeJSON(append(buf[:0], "\n    "...), e)
		bw.Write(buf)
		n++
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n")
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeGraphNodes writes the graph's "nodes" member and its comma.
func writeGraphNodes(bw *bufio.Writer, nodes []view.GraphNode) {
	bw.WriteString(`  "nodes": [`)
	var buf []byte
	for i, n := range nodes {
		if i > 0 {
			bw.WriteString(",")
		}
		buf = appendField(append(append(buf[:0], "\n    "...), '{'), "id", n.ID, true)
		buf = append(appendField(buf, "kind", n.Kind, false), "\n    }"...)
		bw.Write(buf)
	}
	if len(nodes) > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("],\n")
}

// graphJSON is a note's edges as writeGraphJSON prints them, each on
// its own lines after a comma (which the graph's first edge goes
// without): the model file's section for zk graph keeps them so
// (workspace.GraphText), and the graph's edges are every note's, one
// after the other.
var graphJSON = workspace.GraphFormat{Name: "json v3", Lead: 1, AppendEdges: func(b []byte, edges []vault.Edge) []byte {
	var from edgeFrom
	for _, e := range edges {
		b = from.appendEdgeJSON(append(b, ",\n    "...), view.NewEdge(e))
	}
	return b
}}

// writeGraphText prints what writeGraphJSON prints of nodes and of the
// edges g holds as graphJSON prints them.
func writeGraphText(w io.Writer, nodes []view.GraphNode, g workspace.GraphText) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("{\n")
	writeGraphNodes(bw, nodes)
	bw.WriteString(`  "edges": [`)
	wrote, err := g.WriteEdges(bw)
	if err != nil {
		return err
	}
	if wrote {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// edgeFrom is the "from" field of the last edge written, as written: a
// note's edges come together, and its path is quoted once for them all.
type edgeFrom struct {
	from  string
	field []byte
}

// appendEdgeJSON is e as the indenting encoder writes it at an edge's
// depth, its omitempty fields left out when empty.
func (f *edgeFrom) appendEdgeJSON(b []byte, e view.Edge) []byte {
	b = append(b, '{')
	first := true
	str := func(name, v string, omit bool) {
		if omit && v == "" {
			return
		}
		b = appendField(b, name, v, first)
		first = false
	}
	if e.From != "" {
		if f.field == nil || e.From != f.from {
			f.from, f.field = e.From, appendField(f.field[:0], "from", e.From, true)
		}
		b, first = append(b, f.field...), false
	}
	str("to", e.To, true)
	if e.Line != 0 {
		b = appendRawField(b, "line", strconv.AppendInt(nil, int64(e.Line), 10), first)
		first = false
	}
	str("kind", e.Kind, false)
	str("link", e.Link, false)
	b = appendRawField(b, "resolved", strconv.AppendBool(nil, e.Resolved), first)
	str("relation", e.Relation, true)
	str("qualifier", e.Qualifier, true)
	str("justification", e.Justification, true)
	return append(b, "\n    }"...)
}

// appendField writes `"name": "v"` on a line of its own at an element's
// field depth, after a comma unless it is the first.
func appendField(b []byte, name, v string, first bool) []byte {
	return appendJSONString(appendFieldName(b, name, first), v)
}

func appendRawField(b []byte, name string, v []byte, first bool) []byte {
	return append(appendFieldName(b, name, first), v...)
}

func appendFieldName(b []byte, name string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	return append(append(append(b, "\n      \""...), name...), "\": "...)
}

// jsonPlain marks the bytes appendJSONString copies as they are: printable
// ASCII but '"' and '\\'.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONString is s quoted as encoding/json quotes it with HTML
// escaping off: \" and \\, the short escapes, other control bytes as
// \u00xx, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped; and, as
// writeJSON writes it (printable.JSON), C1 controls and bidirectional
// overrides as \uXXXX.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain bytes at a time: a graph's strings are mostly
		// printable ASCII (16 MB of JSON at 10,000 notes), and a byte at
		// a time was a tenth of an unchanged zk graph's CPU.
		for i+8 <= len(s) && plain8(load8(s[i:i+8])) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r != utf8.RuneError && printable.Unsafe(r) { // as writeJSON escapes them
			b = append(append(b, s[start:i]...), '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(append(b, s[start:i]...), '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(append(b, s[start:]...), '"')
}

// load8 is the first 8 bytes of s as a little-endian number: one load.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plain8 reports whether the 8 bytes of x (load8) are all plain
// (jsonPlain): no control byte, '"', '\\' or byte of 0x80 and above.
// (v - n*ones) &^ v has a byte's high bit set when some byte of v is
// below n (n <= 0x80): exact as to whether one is.
func plain8(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	q, bs := x^'"'*ones, x^'\\'*ones
	return (x|(x-0x20*ones)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs == 0
}

func writeDot(out io.Writer, nodes []view.GraphNode, edges iter.Seq[view.Edge]) error {
	w := bufio.NewWriterSize(out, 64<<10) // a write per line was a system call per line
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
	for e := range edges {
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
	fmt.Fprintln(w, "}")
	return w.Flush()
}
