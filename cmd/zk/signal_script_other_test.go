//go:build !unix

package main

import "github.com/rogpeppe/go-internal/testscript"

// signalCmds: the signal scripts skip where there are no Unix signals.
func signalCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return nil
}
