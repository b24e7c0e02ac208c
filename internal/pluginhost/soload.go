package pluginhost

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/internal/hagosrc"
	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/internal/store"
)

// SOLoaderName is the file name of the .so loader program
// (cmd/hearth-soload), which opens one .so and serves it over Hearth's
// plugin protocol: Hearth itself never links Go's plugin package.
const SOLoaderName = "hearth-soload"

// SOSupported reports whether this system can run .so plugins (through
// the loader, which needs cgo there).
const SOSupported = runtime.GOOS == "linux" || runtime.GOOS == "darwin"

// ErrNoSOLoader means there is no loader for .so plugins: none next to
// hearth, and no Hearth checkout and Go toolchain to build one.
var ErrNoSOLoader = errors.New("no .so loader")

// soCapabilities are the groups a .so plugin gets: what HomeAgent's
// PluginSDK offers (the LLM, settings and storage, memory, knowledge). It
// gets no injection into other channels or in users' names, which
// plugin.json would have to declare.
var soCapabilities = []string{"llm", "settings", "kv", "memory", "knowledge"}

// soManifest is the manifest a .so folder runs under: the loader, given
// the .so's path, as the program.
func soManifest(name, so, loader string) *Manifest {
	return &Manifest{ID: name, Command: []string{loader, so}, Capabilities: soCapabilities}
}

// soLoader returns the loader program, found or built once per manager
// (see findSOLoader); a failure is tried again at the next scan.
func (m *Manager) soLoader(ctx context.Context) (string, error) {
	m.soMu.Lock()
	defer m.soMu.Unlock()
	if m.loader != "" {
		return m.loader, nil
	}
	path, err := findSOLoader(ctx, &m.opts)
	if err != nil {
		return "", err
	}
	m.loader = path
	return path, nil
}

// findSOLoader returns, in this order, Options.SOLoader; hearth-soload
// next to the running program; or one built with the go command from the
// Hearth checkout this program comes from, into the data directory's
// cache/soload/<hash of the checkout's path>/. The build runs once per
// process (the go command's cache makes it quick when nothing changed),
// so the loader always matches the checkout the user builds .so files
// against.
func findSOLoader(ctx context.Context, o *Options) (string, error) {
	exeDir := ""
	if exe, err := os.Executable(); err == nil {
		exeDir = filepath.Dir(exe)
	}
	return findSOLoaderFrom(ctx, o, exeDir)
}

// findSOLoaderFrom is findSOLoader for a program in exeDir. A loader
// there that another user may have written (see scaffold.CheckOwned: the
// program copied to /tmp, say) is refused, not run.
func findSOLoaderFrom(ctx context.Context, o *Options, exeDir string) (string, error) {
	if o.SOLoader != "" {
		return o.SOLoader, nil
	}
	if exeDir != "" {
		if p := filepath.Join(exeDir, SOLoaderName); isFile(p) {
			if err := scaffold.CheckOwned(exeDir, p); err != nil {
				return "", fmt.Errorf("%w: %s is not run: %v", ErrNoSOLoader, p, err)
			}
			return p, nil
		}
	}
	src := o.HearthSrc
	if src == "" && exeDir != "" {
		src = scaffold.FindHearthSrc(exeDir, scaffold.BuiltFrom())
	}
	if src == "" {
		return "", fmt.Errorf("%w: put %s (go build ./cmd/%s in the Hearth checkout the .so is built against) next to hearth, "+
			"or run a hearth built from that checkout, which builds it", ErrNoSOLoader, SOLoaderName, SOLoaderName)
	}
	cache := o.DataDir
	if cache == "" {
		var err error
		if cache, err = os.UserCacheDir(); err != nil {
			return "", fmt.Errorf("%w: %v", ErrNoSOLoader, err)
		}
		cache = filepath.Join(cache, "hearth")
	}
	sum := sha256.Sum256([]byte(src))
	out := filepath.Join(cache, "cache", "soload", hex.EncodeToString(sum[:8]), SOLoaderName)
	if v, ok := soBuildFailed.Load(out); ok && time.Since(v.(soFailure).at) < soRetry {
		return "", v.(soFailure).err
	}
	if err := BuildSOLoader(ctx, src, out); err != nil {
		err = fmt.Errorf("%w\n(Hearth tries to build it again %s after this failure, or at its next start)", err, soRetry)
		soBuildFailed.Store(out, soFailure{at: time.Now(), err: err})
		return "", err
	}
	soBuildFailed.Delete(out)
	return out, nil
}

// soRetry is how long a failed build of the loader is remembered: the
// manager scans every few seconds, and a build that fails (no C
// compiler, modules missing, offline) would otherwise run the go command
// at each scan.
const soRetry = time.Minute

// soBuildFailed holds, by the loader's path, the last failed build.
var soBuildFailed sync.Map

// soFailure is a failed build of the loader, and when it failed.
type soFailure struct {
	at  time.Time
	err error
}

// BuildSOLoader builds the .so loader from the Hearth checkout src into
// out, with the go command on PATH and the caller's environment (its
// GOFLAGS too: a .so loads only into a loader built with the same flags),
// cgo on, and offline (GOPROXY=off): a module missing from the module
// cache is an error saying how to fetch it, never a download at run
// time. The file is replaced whole, so a running loader is unaffected,
// and each build writes a file of its own first, so two Hearths sharing
// a data folder cannot hand each other a half-written one.
func BuildSOLoader(ctx context.Context, src, out string) error {
	if _, err := exec.LookPath("go"); err != nil {
		return fmt.Errorf("%w: building it needs the go command on PATH (a .so plugin is built with Go anyway), "+
			"or put %s (go build ./cmd/%s in the Hearth checkout) next to hearth: %v", ErrNoSOLoader, SOLoaderName, SOLoaderName, err)
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return fmt.Errorf("%w: %v", ErrNoSOLoader, err)
	}
	if err := checkWorkspace(ctx, src); err != nil {
		return err
	}
	tmpDir, err := os.MkdirTemp(filepath.Dir(out), ".build-")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoSOLoader, err)
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, SOLoaderName)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", tmp, "./cmd/"+SOLoaderName)
	cmd.Dir = src
	cmd.Env = append(goBuildEnv(os.Environ()), "CGO_ENABLED=1", "GOPROXY=off")
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(buf.String())
		if strings.Contains(msg, "GOPROXY=off") {
			return fmt.Errorf("%w: building it in %s needs modules that are not in Go's module cache, and Hearth downloads nothing "+
				"while it runs: run `go mod download` there once, or put %s next to hearth: %v\n%s", ErrNoSOLoader, src, SOLoaderName, err, msg)
		}
		return fmt.Errorf("%w: building it in %s: %v\n%s", ErrNoSOLoader, src, err, msg)
	}
	if err := os.Rename(tmp, out); err != nil {
		return fmt.Errorf("%w: %v", ErrNoSOLoader, err)
	}
	return nil
}

// goBuildEnv is the part of env the go command reads to build the loader
// (hagosrc.BuildVar, and the user's GOFLAGS, GOWORK and GOTOOLCHAIN): not
// the rest, where the model providers' keys, HEARTH_TOKEN and the like
// are. The build runs a C compiler and pkg-config, which have no use for
// them.
func goBuildEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if hagosrc.BuildVar(k) || k == "GOFLAGS" || k == "GOWORK" || k == "GOTOOLCHAIN" {
			out = append(out, kv)
		}
	}
	return out
}

// checkWorkspace refuses a Go workspace file (go.work) that the go
// command would use in src but another user may have written: its
// replace and use lines decide which code the loader is built from (a
// /tmp/go.work above a checkout cloned into /tmp).
func checkWorkspace(ctx context.Context, src string) error {
	cmd := exec.CommandContext(ctx, "go", "env", "GOWORK")
	cmd.Dir = src
	cmd.Env = goBuildEnv(os.Environ())
	out, err := cmd.Output()
	if err != nil {
		return nil // the build says why the go command fails
	}
	work := strings.TrimSpace(string(out))
	if work == "" || work == "off" {
		return nil
	}
	if err := scaffold.CheckOwned(work); err != nil {
		return fmt.Errorf("%w: not built in %s: the go command would use the Go workspace %s there, and %v (remove it, or set GOWORK=off)",
			ErrNoSOLoader, src, work, err)
	}
	return nil
}

// isFile reports whether path is a regular file.
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

// soFolder returns the plugin of a folder without plugin.json that holds
// a .so, nil for another folder, or why it cannot run. Its command is
// loader, or SOLoaderName until one is known (see soResolve): finding or
// building one waits until the folder is to run, so a folder refused
// (its name taken, disabled) never costs a build.
func soFolder(name, dir string, states map[string]store.PluginState, loader string) (*found, string) {
	so, why := soFile(dir, name)
	if so == "" {
		return nil, why
	}
	if !names.ValidID(name) {
		return nil, fmt.Sprintf("not loaded: the folder name %q of a .so plugin is its id, which must be %s", name, names.IDRule)
	}
	if loader == "" {
		loader = SOLoaderName
	}
	st, ok := states[name]
	return &found{dir: dir, man: soManifest(name, so, loader), disabled: ok && !st.Enabled, so: true}, ""
}

// knownLoader returns the loader once found, or "".
func (m *Manager) knownLoader() string {
	m.soMu.Lock()
	defer m.soMu.Unlock()
	return m.loader
}

// primeSOLoader finds or builds the loader (see soLoader) when a .so
// folder of want waits for one, before the scan takes the manager's lock
// again: the build runs the go command, seconds to minutes, and List,
// WaitReady and the other scans must not wait for it. Its failure is
// soResolve's to report (it is remembered, see soRetry).
func (m *Manager) primeSOLoader(ctx context.Context, want map[string]found) {
	for _, f := range want {
		if f.so && f.man.Command[0] == SOLoaderName {
			_, _ = m.soLoader(ctx)
			return
		}
	}
}

// soResolve returns the manifest f runs under: for a .so folder whose
// loader is not known yet, with the loader found or built now.
func (m *Manager) soResolve(ctx context.Context, f found) (*Manifest, error) {
	if !f.so || f.man.Command[0] != SOLoaderName {
		return f.man, nil
	}
	loader, err := m.soLoader(ctx)
	if err != nil {
		return nil, fmt.Errorf("not loaded: %w", err)
	}
	return soManifest(f.man.ID, f.man.Command[1], loader), nil
}
