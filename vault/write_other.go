//go:build !unix

package vault

// processAlive cannot tell here; temporary files are then swept by age
// alone.
func processAlive(int) bool { return true }
