//go:build !unix

package vault

import "errors"

// mkfifo makes a named pipe where the system has them.
func mkfifo(string) error { return errors.New("no named pipes on this system") }
