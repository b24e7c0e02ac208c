package pluginhost

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// TestSOLoaderBuildDownloadsNothing: Hearth builds the .so loader while
// it runs; with Go's module cache empty, that build must not fetch
// Hearth's modules from the module proxy (a loopback one here, which
// counts what it is asked) but fail saying what to do.
func TestSOLoaderBuildDownloadsNothing(t *testing.T) {
	var asked atomic.Int32
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer proxy.Close()
	t.Setenv("GOPROXY", proxy.URL)
	t.Setenv("GOSUMDB", "off") // nothing but the loopback proxy, whatever the build does
	t.Setenv("GOTOOLCHAIN", "local")
	t.Setenv("GOMODCACHE", t.TempDir())
	src, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	err = BuildSOLoader(context.Background(), src, filepath.Join(t.TempDir(), SOLoaderName))
	if n := asked.Load(); n != 0 {
		t.Errorf("building the loader asked the module proxy %d times", n)
	}
	if !errors.Is(err, ErrNoSOLoader) || !strings.Contains(err.Error(), "go mod download") || !strings.Contains(err.Error(), src) {
		t.Errorf("error %v; want ErrNoSOLoader saying to run go mod download in %s", err, src)
	}
}

// TestSOLoaderNextToHearthOnlyIfOurs: hearth runs the hearth-soload it
// finds next to itself; where another user may have put that file (hearth
// copied to /tmp, or a loader anyone may write), it is refused, saying
// why, rather than run with the owner's rights.
func TestSOLoaderNextToHearthOnlyIfOurs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes do not say who may write a file")
	}
	o := &Options{DataDir: t.TempDir(), HearthSrc: t.TempDir()}
	write := func(dir string, dirMode, mode os.FileMode) string {
		t.Helper()
		p := filepath.Join(dir, SOLoaderName)
		if err := os.WriteFile(p, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, dirMode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct {
		what          string
		dirMode, mode os.FileMode
		want          string // in the error; "" means the loader is used
	}{
		{"in a folder anyone may write", 0o1777, 0o755, "may be written by any user"},
		{"that anyone may write", 0o755, 0o777, "may be written by any user"},
		{"the user's own", 0o755, 0o755, ""},
	} {
		dir := t.TempDir()
		p := write(dir, c.dirMode, c.mode)
		got, err := findSOLoaderFrom(context.Background(), o, dir)
		switch {
		case c.want == "" && (err != nil || got != p):
			t.Errorf("a loader %s: %q, %v; want %s", c.what, got, err, p)
		case c.want != "" && (!errors.Is(err, ErrNoSOLoader) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), p)):
			t.Errorf("a loader %s: %q, %v; want ErrNoSOLoader naming it and saying %q", c.what, got, err, c.want)
		}
	}
}
