//go:build !linux

package hugepage

// advised: no advice is given here.
const advised = false

// advise does nothing where zk asks no system for huge pages.
func advise(p, n uintptr) {}
