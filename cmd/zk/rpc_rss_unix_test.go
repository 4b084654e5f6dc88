//go:build unix

package main

import (
	"fmt"
	"os"
	"runtime"
	"syscall"
)

// maxRSS is a finished process's peak resident memory, as the kernel
// counted it.
func maxRSS(ps *os.ProcessState) string {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return "unknown"
	}
	kib := ru.Maxrss // KiB on Linux, bytes on macOS
	if runtime.GOOS == "darwin" {
		kib /= 1024
	}
	return fmt.Sprintf("%d MiB", kib/1024)
}
