//go:build (linux || darwin) && cgo

package soload

import (
	"fmt"
	"os"
	"path/filepath"
	"plugin"
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

// Supported reports whether this build can open .so plugins.
const Supported = true

// Open opens a HomeAgent-style Go plugin and returns its factory: the
// exported NewPlugin, or NewPluginFactory when there is no NewPlugin.
// The .so must be built with exactly the Go version, build flags and
// versions of every shared package (the sdk among them) that built this
// program, with cgo, on Linux or macOS; a Go plugin can never be closed.
// A panic in the .so's init functions is returned as an *InitPanicError.
func Open(path string) (factory sdk.NewPlugin, err error) {
	defer func() {
		if v := recover(); v != nil {
			factory, err = nil, &InitPanicError{Path: path, Value: v, Stack: debug.Stack()}
		}
	}()
	p, err := plugin.Open(path)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "different version") || strings.Contains(msg, "built with") {
			return nil, fmt.Errorf("%s was built with another Go version or other package versions than Hearth's .so loader (%s); "+
				"rebuild it with that Go in that checkout (plain go build -buildmode=plugin), or, if the loader is the stale one, "+
				"rebuild it from the checkout the .so is built against (go build -o DIR ./cmd/hearth-soload): %w", path, loaderBuild(), err)
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	for _, export := range []string{"NewPlugin", "NewPluginFactory"} {
		sym, err := p.Lookup(export)
		if err != nil {
			continue
		}
		switch f := sym.(type) {
		case func(string, map[string]any) (sdk.Plugin, error):
			return f, nil
		case *sdk.NewPlugin:
			return *f, nil
		}
		if foreignSDK(sym) {
			return nil, fmt.Errorf("%s was built against HomeAgent's own SDK, whose types are not Hearth's: install the plugin's Go source folder instead (`hearth plugin install SOURCE`), and Hearth builds it against its own", path)
		}
		return nil, fmt.Errorf("%s: %s has type %T, want func(name string, config map[string]any) (sdk.Plugin, error)", path, export, sym)
	}
	return nil, fmt.Errorf("%s exports neither NewPlugin nor NewPluginFactory", path)
}

// foreignSDK reports whether sym is a factory returning another SDK's
// Plugin: a .so built against HomeAgent's sdk package.
func foreignSDK(sym any) bool {
	t := reflect.TypeOf(sym)
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Func || t.NumOut() == 0 {
		return false
	}
	return strings.Contains(t.Out(0).PkgPath(), "homeagent")
}

// loaderBuild says which loader this is: its path, its Go version and the
// Hearth checkout it was built from (unknown with -trimpath), so that a
// user can tell which of the .so and the loader is stale.
func loaderBuild() string {
	exe, err := os.Executable()
	if err != nil {
		exe = "hearth-soload"
	}
	src := "an unknown checkout (built with -trimpath)"
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		src = "the checkout " + filepath.Dir(filepath.Dir(filepath.Dir(file))) // internal/soload/open.go
	}
	return fmt.Sprintf("%s, built by %s from %s", exe, runtime.Version(), src)
}
