// Package hagosrc builds a HomeAgent Go plugin's source folder into a
// Hearth child-process plugin, so a user installs one without writing
// glue. A HomeAgent source folder is package main without a main
// function, exports NewPlugin or NewPluginFactory, has a plg.json, and
// its go.mod requires gitcode.com/JianFeeeee/homeagent-sdk with a replace
// to a local path that exists only on its author's machine.
//
// Build never writes into that folder. In a build folder of Hearth's it
// writes the forwarding module (forward/sdk: the import path
// gitcode.com/JianFeeeee/homeagent-sdk/sdk, forwarding to Hearth's sdk), a
// copy of the plugin's go.mod with replace directives pointing that
// module and github.com/hearth-agent/hearth at local folders (go build
// -modfile), and a main function that serves the plugin over Hearth's
// protocol (sdk/pluginrpc), added to the package with go build -overlay.
// The build is offline (GOPROXY=off): a plugin needing a module that is not
// in the module cache fails with ErrMissingModule.
package hagosrc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"go/version"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/hearth-agent/hearth/internal/names"
)

// Module is the module path HomeAgent plugins require.
const Module = "gitcode.com/JianFeeeee/homeagent-sdk"

// OldModule is the module path of HomeAgent's SDK before it moved to
// gitcode.com; plugins written then import OldModule + "/sdk". Hearth
// provides both.
const OldModule = "github.com/JianFeeeee/homeagentsdk"

// hearthModule is Hearth's module path.
const hearthModule = "github.com/hearth-agent/hearth"

// RecordFile is the file in a built plugin folder that says what it was
// built from (a Record).
const RecordFile = "hearth-build.json"

//go:embed forward/sdk/*.go
var forward embed.FS

// Errors callers branch on.
var (
	// ErrCompile means the Go toolchain refused the source; the error
	// carries its output.
	ErrCompile = errors.New("the plugin does not compile")
	// ErrMissingModule means the build needs a module (the plugin's, or
	// one of Hearth's SDK's own) that is not in the module cache, which
	// an offline build cannot fetch.
	ErrMissingModule = errors.New("a Go module the build needs is not in the module cache")
	// ErrNoGo means the go command is not installed (or not on PATH).
	ErrNoGo = errors.New("building a HomeAgent plugin needs the Go toolchain (the go command on PATH; see https://go.dev/dl)")
)

// Options says what Build builds, with what.
type Options struct {
	// Src is the HomeAgent source folder; it is only read. It must be
	// pure Go (ErrNotPureGo); the build reads nothing outside it but the
	// module cache, Hearth's checkout and the local folders its go.mod's
	// replace directives name.
	Src string
	// ID, when set, is the plugin's id instead of plg.json's name (for a
	// name Hearth reserves, as "web"); the plugin gets it as its name.
	ID string
	// Out is an empty or missing folder Build works in; the plugin
	// folder ends up in Out/plugin.
	Out string
	// HearthSrc is a Hearth checkout (see scaffold.FindHearthSrc).
	HearthSrc string
	// Go is the go command; empty means "go" on PATH.
	Go string
	// Env is the toolchain's environment; nil means os.Environ(). Build
	// sets GOFLAGS, GOPROXY, GOWORK, GOTOOLCHAIN and CGO_ENABLED itself.
	Env []string
}

// Result is a built plugin folder.
type Result struct {
	ID  string // the plugin id: plg.json's name
	Dir string // the plugin folder: plugin.json, the program, plg.json, RecordFile
	// Factory is the exported constructor the wrapper calls: NewPlugin,
	// or NewPluginFactory when only that one exists.
	Factory string
	// Capabilities are the capability groups granted in plugin.json:
	// those of the PluginSDK accessors the code calls (Settings: settings,
	// LLM: llm, Memory, TextMemory, DocMemory: memory, Knowledge:
	// knowledge). Injection into other channels or in users' names is
	// never granted here.
	Capabilities []string
	Record       Record
}

// Record says where a built plugin came from, so installing the same
// folder again rebuilds it in place.
type Record struct {
	Source string `json:"source"` // the source folder, absolute
	Digest string `json:"digest"` // sha256 of its files (see Digest)
}

// ReadRecord reads dir's RecordFile.
func ReadRecord(dir string) (Record, error) {
	var r Record
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("%s: %w", filepath.Join(dir, RecordFile), err)
	}
	return r, nil
}

// IsSource reports whether dir looks like a HomeAgent Go source folder:
// a plg.json, a go.mod and Go files, and no plugin.json.
func IsSource(dir string) bool {
	for _, f := range []string{PlgFile, "go.mod"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return false
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "plugin.json")); err == nil {
		return false
	}
	gos, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	return len(gos) > 0
}

// Build builds o.Src into o.Out/plugin.
func Build(ctx context.Context, o Options) (*Result, error) {
	src, err := filepath.Abs(o.Src)
	if err != nil {
		return nil, err
	}
	plg, err := ReadPlg(src)
	if err != nil {
		return nil, err
	}
	if o.ID != "" {
		if !names.ValidID(o.ID) {
			return nil, fmt.Errorf("plugin id %q must be %s", o.ID, names.IDRule)
		}
		plg.Name = o.ID
	}
	if plg.Lua() {
		return nil, fmt.Errorf("%s is a Lua plugin (entry %q): Hearth runs Go plugins only", src, plg.Entry)
	}
	if o.HearthSrc == "" {
		return nil, errors.New("building a HomeAgent plugin needs a Hearth checkout (Hearth's module is not on the Go proxy): run from inside one, or pass --hearth-src DIR")
	}
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return nil, fmt.Errorf("%s has no go.mod: %w", src, err)
	}
	if err := checkPureGo(src); err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	code, err := readSource(src)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	digest, err := Digest(src)
	if err != nil {
		return nil, err
	}
	t := &toolchain{goCmd: o.Go, env: buildEnv(o.Env)}
	if t.goCmd == "" {
		t.goCmd = "go"
	}
	work, dir := filepath.Join(o.Out, "work"), filepath.Join(o.Out, "plugin")
	for _, d := range []string{work, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	fwd, err := writeForward(filepath.Join(work, "homeagent-sdk"), Module, o.HearthSrc)
	if err != nil {
		return nil, err
	}
	oldFwd, err := writeForward(filepath.Join(work, "homeagentsdk"), OldModule, o.HearthSrc)
	if err != nil {
		return nil, err
	}
	modfile, err := t.modfile(ctx, src, work, map[string]string{Module: fwd, OldModule: oldFwd}, o.HearthSrc)
	if err != nil {
		return nil, err
	}
	overlay, err := writeMain(src, work, code.factory)
	if err != nil {
		return nil, err
	}
	exe := filepath.Join(dir, exeName(plg.Name))
	out, err := t.run(ctx, src, "build", "-modfile="+modfile, "-overlay="+overlay, "-o", exe, ".")
	if err != nil {
		return nil, buildError(src, out, err, requiredBy(filepath.Join(o.HearthSrc, "go.mod")))
	}
	res := &Result{ID: plg.Name, Dir: dir, Factory: code.factory, Capabilities: code.groups,
		Record: Record{Source: src, Digest: digest}}
	if err := writePluginFolder(src, dir, plg, res); err != nil {
		return nil, err
	}
	return res, nil
}

// buildEnv is the toolchain's environment: offline, module mode, this
// toolchain only, cgo off (a C compiler or assembler run by the build
// could read any file the user can: .incbin, #include), and only the
// variables a Go build reads, so that Hearth's secrets (API keys in its
// environment) never reach the toolchain.
func buildEnv(base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	set := map[string]string{"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOWORK": "off", "GOTOOLCHAIN": "local", "CGO_ENABLED": "0"}
	env := make([]string, 0, len(set)+8)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, ours := set[k]; !ours && BuildVar(k) {
			env = append(env, kv)
		}
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// BuildVar reports whether the go command or the C toolchain reads the
// environment variable k: the variables a Go build is given, so that
// Hearth's secrets (API keys in its environment) never reach it.
func BuildVar(k string) bool {
	if runtime.GOOS == "windows" {
		k = strings.ToUpper(k) // Path, SystemRoot: names there have no case
	}
	switch k {
	case "PATH", "HOME", "USER", "TMPDIR", "TEMP", "TMP", "LANG", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
		"CC", "CXX", "AR", "SYSTEMROOT", "LOCALAPPDATA", "APPDATA", "USERPROFILE", "COMSPEC", "PATHEXT",
		// Where the C toolchain finds headers and libraries (cgo builds on
		// Nix, Homebrew or macOS need them); none holds a secret.
		"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "LIBRARY_PATH", "SDKROOT", "DEVELOPER_DIR",
		"MACOSX_DEPLOYMENT_TARGET":
		return true
	}
	return goVars[k] || strings.HasPrefix(k, "CGO_") || strings.HasPrefix(k, "LC_") ||
		strings.HasPrefix(k, "PKG_CONFIG") || strings.HasPrefix(k, "NIX_")
}

// goVars are the go command's own variables (`go help environment`);
// a prefix would let GOOGLE_API_KEY through.
var goVars = map[string]bool{
	"GOROOT": true, "GOPATH": true, "GOCACHE": true, "GOMODCACHE": true, "GOENV": true, "GOTMPDIR": true,
	"GOOS": true, "GOARCH": true, "GOAMD64": true, "GOARM": true, "GOARM64": true, "GO386": true,
	"GOMIPS": true, "GOMIPS64": true, "GOPPC64": true, "GORISCV64": true, "GOWASM": true,
	"GOEXPERIMENT": true, "GODEBUG": true, "GOFIPS140": true, "GO111MODULE": true, "GOINSECURE": true,
	"GOPRIVATE": true, "GONOPROXY": true, "GONOSUMDB": true, "GONOSUMCHECK": true, "GOSUMDB": true,
	"GOVCS": true, "GOTELEMETRY": true, "GOTELEMETRYDIR": true, "GOCACHEPROG": true,
}

// toolchain runs the go command.
type toolchain struct {
	goCmd string
	env   []string
}

// run runs go with args in dir and returns its combined output.
func (t *toolchain) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, t.goCmd, args...)
	cmd.Dir, cmd.Env = dir, t.env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if errors.Is(err, exec.ErrNotFound) || (cmd.ProcessState == nil && errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("%w: %w", ErrNoGo, err)
	}
	return out.Bytes(), err
}

// buildError turns go build's failure into an error for the user.
// hearthMods are the modules (path@version) Hearth's own go.mod requires:
// a missing one is named as what Hearth's SDK needs, not the plugin.
func buildError(src string, out []byte, err error, hearthMods map[string]bool) error {
	if errors.Is(err, ErrNoGo) {
		return err
	}
	msg := strings.TrimSpace(string(out))
	if msg == "" {
		msg = err.Error()
	}
	if strings.Contains(msg, "GOPROXY=off") || strings.Contains(msg, "module lookup disabled") {
		mods := missingModules(msg)
		if len(mods) == 0 {
			return fmt.Errorf("%w (Hearth builds offline; does the plugin's go.mod require every module it imports?):\n%s", ErrMissingModule, msg)
		}
		var sdk, plugin []string
		for _, m := range mods {
			if hearthMods[m] {
				sdk = append(sdk, m)
			} else {
				plugin = append(plugin, m)
			}
		}
		var needs []string
		if len(sdk) > 0 {
			needs = append(needs, "Hearth's SDK needs "+strings.Join(sdk, ", "))
		}
		if len(plugin) > 0 {
			needs = append(needs, "the plugin needs "+strings.Join(plugin, ", "))
		}
		return fmt.Errorf("%w (Hearth builds offline): %s; fetch them once with network access, running `go mod download %s` outside any module folder, then install again:\n%s",
			ErrMissingModule, strings.Join(needs, "; "), strings.Join(mods, " "), msg)
	}
	return fmt.Errorf("%w:\n%s", ErrCompile, msg)
}

// requiredBy returns the modules (path@version) the go.mod at path
// requires; an unreadable file requires none.
func requiredBy(path string) map[string]bool {
	mods := map[string]bool{}
	b, err := os.ReadFile(path)
	if err != nil {
		return mods
	}
	block := false
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "require" && f[1] == "(":
			block = true
		case block && len(f) >= 1 && f[0] == ")":
			block = false
		case block && len(f) >= 2:
			mods[f[0]+"@"+f[1]] = true
		case len(f) >= 3 && f[0] == "require":
			mods[f[1]+"@"+f[2]] = true
		}
	}
	return mods
}

// missingModules returns the modules (path@version) go wanted to
// download, from its output.
func missingModules(out string) []string {
	var mods []string
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) == 4 && f[0] == "go:" && f[1] == "downloading" {
			mods = append(mods, f[2]+"@"+f[3])
		}
	}
	return mods
}

// writeForward writes the forwarding module, under the module path
// module, into dir and returns dir.
func writeForward(dir, module, hearthSrc string) (string, error) {
	goVersion, err := goLine(filepath.Join(hearthSrc, "go.mod"))
	if err != nil {
		return "", err
	}
	mod := fmt.Sprintf("// Written by Hearth: HomeAgent's SDK module, forwarding to Hearth's sdk.\nmodule %s\n\ngo %s\n\nrequire %s v0.0.0-00010101000000-000000000000\n",
		module, goVersion, hearthModule)
	if err := os.MkdirAll(filepath.Join(dir, "sdk"), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o644); err != nil {
		return "", err
	}
	files, err := fs.Glob(forward, "forward/sdk/*.go")
	if err != nil {
		return "", err
	}
	for _, f := range files {
		b, err := forward.ReadFile(f)
		if err != nil {
			return "", err
		}
		if err := os.WriteFile(filepath.Join(dir, "sdk", filepath.Base(f)), b, 0o644); err != nil {
			return "", err
		}
	}
	return dir, nil
}

// mainFile is the wrapper's name in the package, which no HomeAgent
// plugin has.
const mainFile = "zz_hearth_main.go"

// writeMain writes the wrapper main and the overlay that adds it to the
// package in src, and returns the overlay's path.
func writeMain(src, work, factory string) (string, error) {
	body := fmt.Sprintf(`// Code generated by Hearth (hearth plugin install); DO NOT EDIT.

package main

import hearthpluginrpc "github.com/hearth-agent/hearth/sdk/pluginrpc"

func main() { hearthpluginrpc.Serve(%s) }
`, factory)
	main := filepath.Join(work, mainFile)
	if err := os.WriteFile(main, []byte(body), 0o644); err != nil {
		return "", err
	}
	b, err := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(src, mainFile): main}})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(work, "overlay.json")
	return overlay, os.WriteFile(overlay, b, 0o644)
}

// writePluginFolder writes plugin.json, plg.json and the record next to
// the built program.
func writePluginFolder(src, dir string, plg *Plg, res *Result) error {
	name := plg.NameEn
	if name == "" {
		name = plg.Name
	}
	man := map[string]any{"id": plg.Name, "name": name, "version": plg.Version,
		"description": plg.Description, "command": []string{"./" + exeName(plg.Name)}}
	if len(res.Capabilities) > 0 {
		man["capabilities"] = res.Capabilities
	}
	files := map[string]any{"plugin.json": man, RecordFile: res.Record}
	for f, v := range files {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	b, err := os.ReadFile(filepath.Join(src, PlgFile))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, PlgFile), b, 0o644)
}

// Digest hashes the files of a source folder (names and contents, in
// walk order), leaving out hidden folders and HomeAgent's dist output.
func Digest(dir string) (string, error) {
	h := sha256.New()
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "dist") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		fmt.Fprintf(h, "%s\x00", filepath.ToSlash(rel))
		_, err = io.Copy(h, f)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", dir, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// exeName is the program's file name for the plugin id.
func exeName(id string) string {
	if runtime.GOOS == "windows" {
		return id + ".exe"
	}
	return id
}

// newer returns the later of two go versions ("1.25.0", "1.26").
func newer(a, b string) string {
	if version.Compare("go"+a, "go"+b) >= 0 {
		return a
	}
	return b
}
