//go:build !unix

package ownfile

import "os"

// noFollow: no such flag here; OpenFile's Lstat is the guard.
const noFollow = 0

// nonBlock: no FIFOs to wait on here.
const nonBlock = 0

func isLoop(error) bool { return false }

func clearNonblock(*os.File) error { return nil }
