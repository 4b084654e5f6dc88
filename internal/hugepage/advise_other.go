//go:build !linux

package hugepage

// advise does nothing where zk asks no system for huge pages.
func advise(p, n uintptr) {}
