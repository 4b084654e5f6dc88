// Package lazyre compiles a package's regular expressions when they are
// first used, not when the process starts: every zk command paid for the
// compilation of every pattern of every package linked in, most of which
// it never runs (GODEBUG=inittrace=1 showed them among the costliest
// package inits of zk's own).
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp then and after. An expr that does
// not compile panics at that first call, as regexp.MustCompile does (a
// test that runs the pattern finds it).
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
