package main

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/rivo/uniseg"
	"github.com/rogpeppe/go-internal/testscript"
)

// aDatum is a line that holds one path or one URL and nothing else (after
// its indent, at most a :line:col: after a path): the one kind of line
// allowed past the width, as a path or address wider than the terminal
// is data, and cutting it would make one that does not exist.
var aDatum = regexp.MustCompile(`^ *(?:[^ ].*\.(md|base|canvas|log)(:\d+(:\d+)?:?)?|[a-z][a-z0-9+.-]*://[^ ]+)$`)

// fitsCmd is "fits N stdout|stderr|FILE": every line of the text is at
// most N columns wide as a terminal draws it (uniseg: an emoji with VS16,
// CJK), unless it holds a single path (aDatum) with no gap of two spaces,
// as a column of a table would leave.
func fitsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fits N stdout|stderr|FILE")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	var text string
	switch args[1] {
	case "stdout":
		text = ts.ReadFile("stdout")
	case "stderr":
		text = ts.ReadFile("stderr")
	default:
		text = ts.ReadFile(args[1])
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		w := uniseg.StringWidth(line)
		if w <= n {
			continue
		}
		if aDatum.MatchString(line) && !strings.Contains(strings.TrimLeft(line, " "), "  ") {
			continue
		}
		ts.Fatalf("%s line %d is %d columns wide, over %d:\n%s", args[1], i+1, w, n, line)
	}
}
