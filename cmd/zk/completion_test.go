package main

import (
	"context"
	"strings"
	"testing"
)

// TestFlagCompletionsAtRequest: a command's start registers no flag
// completions (a cost every start paid); the shell's request for
// completions still gets them.
func TestFlagCompletionsAtRequest(t *testing.T) {
	var out, errOut strings.Builder
	s := &streams{in: strings.NewReader(""), out: &out, err: &errOut}
	root := newRootCmd(s)
	stale, _, err := root.Find([]string{"stale"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := stale.GetFlagCompletionFunc("within"); ok {
		t.Error("--within's completion registered before any request for completions")
	}
	if code := run(context.Background(), []string{"__complete", "stale", "--within", ""}, s); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "7d\n") {
		t.Errorf("completions of --within = %q, want 7d among them", out.String())
	}
}
