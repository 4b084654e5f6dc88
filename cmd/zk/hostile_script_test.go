package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// genhostileCmd writes a vault of hostile notes into DIR, one per shape
// that once took a command past minutes or out of memory (issue 12): a
// YAML alias bomb, one level of aliases squaring a string of links, one
// line of 200,000 links, broken links into notes of thousands of headings
// and block ids, and a deeply nested tag.
func genhostileCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: genhostile DIR")
	}
	dir := ts.MkAbs(args[0])
	ts.Check(os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755))
	write := func(name string, s string) {
		ts.Check(os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
	}
	var b strings.Builder

	// 444 bytes: nine anchors, each nine references to the one before.
	b.WriteString("---\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, c := range "bcdefghi" {
		b.WriteString(string(c) + ": &" + string(c) + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+",", 9), ",") + "]\n")
		prev = string(c)
	}
	b.WriteString("---\n# Bomb\n")
	write("bomb.md", b.String())

	const n = 1000
	write("square.md", "---\na0: &a0 \""+strings.Repeat("[[Nope]] ", n)+"\"\na1: ["+
		strings.TrimSuffix(strings.Repeat("*a0, ", n), ", ")+"]\n---\n# Square\n")

	write("Target.md", "# The target\n") // not its name: zk mv edits only long.md
	write("long.md", strings.Repeat("[[Target]]", 200_000)+"\n")

	b.Reset()
	var links strings.Builder
	for i := range 2000 {
		b.WriteString("## Heading number " + strconv.Itoa(i) + "\n")
		links.WriteString("[[Headings#Missing heading " + strconv.Itoa(i) + "]]\n")
	}
	write("Headings.md", b.String())
	write("Heading links.md", links.String())

	b.Reset()
	links.Reset()
	for i := range 40_000 {
		b.WriteString("para " + strconv.Itoa(i) + " ^b" + strconv.Itoa(i) + "\n\n")
		links.WriteString("[[Blocks#^nob" + strconv.Itoa(i) + "]]\n")
	}
	write("Blocks.md", b.String())
	write("Block links.md", links.String())

	write("tag.md", "#a"+strings.Repeat("/a", 2000)+"\n")

	// Link brackets goldmark, or zk's wikilink parser, read to the end of
	// the line at each one: zk runs took 39 s on 400 KB of "[x](" where
	// it parsed without a budget, and a line of "[[a]" was quadratic.
	write("Destinations.md", "---\ntype: claim\n---\n# Destinations\n\n## Falsifiers\n\n- `true`\n\n"+
		strings.Repeat("[x](", 100_000)+"\n\n"+strings.Repeat("[[a]", 100_000)+"\n")

	// A paragraph of reference definitions, which goldmark takes off its
	// front one at a time: quadratic, and an abandoned parse of it ran on.
	write("Definitions.md", "# Definitions\n\n"+strings.Repeat("[a]: b\n", 100_000))
}

// genlongCmd writes a note titled Long whose text is one word of SIZE
// bytes of the letter C: the shape that cost zk index 8 s and 570 MB at
// 4 MiB (issue 23).
func genlongCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 || len(args[2]) != 1 {
		ts.Fatalf("usage: genlong FILE SIZE LETTER")
	}
	size, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte("# Long\n\n"+strings.Repeat(args[2], size)+"\n"), 0o644))
}

// genwordsCmd writes a note titled Words of COUNT one-letter words (a to
// j over and over) and then WORD: the shape that took zk index to 780 MB
// at 2,000,000 words, where bleve held every word with its position.
func genwordsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: genwords FILE COUNT WORD")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	var b strings.Builder
	b.WriteString("# Words\n\nthe rate without its denominator\n\n")
	for i := range n {
		b.WriteByte("abcdefghij"[i%10])
		b.WriteByte(' ')
	}
	b.WriteString("\n\n" + args[2] + "\n")
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
}
