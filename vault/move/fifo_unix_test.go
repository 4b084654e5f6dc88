//go:build unix

package move

import "syscall"

// mkfifo makes a FIFO at path, which a hostile vault may hold where zk
// expects a file.
func mkfifo(path string, mode uint32) error { return syscall.Mkfifo(path, mode) }
