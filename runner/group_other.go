//go:build !unix

package runner

import (
	"os"
	"os/exec"
)

// inGroup leaves the default: a cancelled context kills the process
// itself. (A Windows job object would take its children too.)
func inGroup(*exec.Cmd) {}

func endGroup(*exec.Cmd) {}

func signalOf(*os.ProcessState) string { return "" }
