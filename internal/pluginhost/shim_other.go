//go:build !linux

package pluginhost

import (
	"fmt"
	"os"
)

// shimUsable is false: only Linux has child subreapers and Pdeathsig.
func shimUsable() bool { return false }

func runShim([]string) int {
	fmt.Fprintln(os.Stderr, "hearth: the plugin supervisor runs on Linux only")
	return 125
}
