//go:build unix

package vault

import "syscall"

// mkfifo makes a named pipe, a file Files must leave out.
func mkfifo(p string) error { return syscall.Mkfifo(p, 0o644) }
