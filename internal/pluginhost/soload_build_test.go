package pluginhost

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"path/filepath"
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
