//go:build linux

package pluginhost

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestShimRunsBeforeHeavyInits starts this test binary, which links what
// pluginhost links, as a shim with GODEBUG=inittrace=1, and checks that
// the supervisor ran, and exited, before any package outside the
// standard library or any of the heavy standard ones was initialized:
// the shim's start and memory depend on it (see package shim's doc).
func TestShimRunsBeforeHeavyInits(t *testing.T) {
	truePath, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to run as the plugin")
	}
	cmd := exec.Command("/proc/self/exe", shimArg, strconv.Itoa(os.Getpid()), truePath, "true")
	godebug := "inittrace=1"
	if g := os.Getenv("GODEBUG"); g != "" {
		godebug = g + "," + godebug
	}
	cmd.Env = append(os.Environ(), "GODEBUG="+godebug)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("shim running true: %v\n%s", err, stderr.String())
	}
	heavyStd := map[string]bool{
		"net/http": true, "encoding/json": true, "encoding/gob": true, "regexp": true,
		"reflect": true, "crypto/tls": true, "crypto/x509": true, "math/big": true, "log/slog": true,
	}
	allowed := map[string]bool{
		"github.com/hearth-agent/hearth/internal/pluginhost/shim": true,
		// Embedded files only; initialized this early by its import path.
		"github.com/hearth-agent/hearth/sdk/python": true,
	}
	var inits []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "init" || !strings.HasPrefix(f[2], "@") {
			continue
		}
		pkg := f[1]
		inits = append(inits, pkg)
		first, _, _ := strings.Cut(pkg, "/")
		if heavyStd[pkg] || (strings.Contains(first, ".") && !allowed[pkg]) {
			t.Errorf("package %s was initialized in the shim", pkg)
		}
	}
	if len(inits) == 0 || inits[0] == "" {
		t.Fatalf("no init trace in the shim's stderr:\n%s", stderr.String())
	}
	if !strings.Contains(strings.Join(inits, " "), "os/signal") {
		t.Errorf("os/signal, which the shim imports, was not traced: %v", inits)
	}
}
