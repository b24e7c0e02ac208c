//go:build !linux

package shim

import "os"

// Usable is false: only Linux has child subreapers and Pdeathsig.
func Usable() bool { return false }

func run([]string) int {
	os.Stderr.WriteString("hearth: the plugin supervisor runs on Linux only\n")
	return 125
}
