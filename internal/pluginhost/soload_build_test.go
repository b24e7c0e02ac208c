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
	"time"

	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/internal/store"
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

// TestSOLoaderBuildFailureNotRepeated: the manager scans every few
// seconds; a build of the loader that fails (here a go command that
// fails as one without a C compiler does) runs once, not at each scan,
// and again once soRetry has passed. (Its go env answers nothing.)
func TestSOLoaderBuildFailureNotRepeated(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in go command is a shell script")
	}
	bin, count := t.TempDir(), filepath.Join(t.TempDir(), "count")
	script := "#!/bin/sh\n[ \"$1\" = env ] && exit 0\necho run >> '" + count + "'\necho 'cgo: C compiler \"gcc\" not found' >&2\nexit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	runs := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "run")
	}
	o := &Options{DataDir: t.TempDir(), HearthSrc: t.TempDir()}
	for range 3 {
		if _, err := findSOLoader(context.Background(), o); !errors.Is(err, ErrNoSOLoader) || !strings.Contains(err.Error(), "C compiler") {
			t.Fatalf("got %v", err)
		}
	}
	if n := runs(); n != 1 {
		t.Fatalf("three scans ran the go command %d times", n)
	}
	soBuildFailed.Clear() // as if soRetry had passed
	findSOLoader(context.Background(), o)
	if n := runs(); n != 2 {
		t.Fatalf("after soRetry: %d runs of the go command", n)
	}
}

// TestSOLoaderWithoutGo: a new user without the go command is told both
// ways to get a loader.
func TestSOLoaderWithoutGo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	err := BuildSOLoader(context.Background(), t.TempDir(), filepath.Join(t.TempDir(), SOLoaderName))
	if !errors.Is(err, ErrNoSOLoader) || !strings.Contains(err.Error(), "go command on PATH") || !strings.Contains(err.Error(), SOLoaderName+" (go build") {
		t.Fatalf("got %v", err)
	}
}

// TestSOLoaderConcurrentBuilds: two Hearths sharing a data folder (or
// two managers) build the loader at once; each build writes a file of
// its own before the rename, so both succeed. The stand-in go command
// makes the two builds overlap: each writes its output only once both
// have started, and exits only once both have written (go env, asked
// first, answers nothing).
func TestSOLoaderConcurrentBuilds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in go command is a shell script")
	}
	bin, meet := t.TempDir(), t.TempDir()
	script := `#!/bin/sh
[ "$1" = env ] && exit 0
out=$3
touch '` + meet + `/started.'$$
while [ "$(ls '` + meet + `' | grep -c started)" -lt 2 ]; do sleep 0.01; done
printf '#!/bin/sh\nexit 0\n' > "$out"
touch '` + meet + `/wrote.'$$
while [ "$(ls '` + meet + `' | grep -c wrote)" -lt 2 ]; do sleep 0.01; done
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(t.TempDir(), SOLoaderName)
	errs := make(chan error, 2)
	for range 2 {
		go func() { errs <- BuildSOLoader(context.Background(), t.TempDir(), out) }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if !isFile(out) {
		t.Fatalf("no loader at %s", out)
	}
}

// TestSOLoaderBuildRefusesSharedWorkspace: a checkout cloned into /tmp
// builds under any /tmp/go.work, whose replace lines decide what code
// the loader is built from; one another user may have written is
// refused, saying so, before anything is built.
func TestSOLoaderBuildRefusesSharedWorkspace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes do not say who may write a file")
	}
	shared := t.TempDir()
	src := filepath.Join(shared, "hearth")
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module "+scaffold.HearthModule+"\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(shared, "go.work")
	if err := os.WriteFile(work, []byte("go 1.26.0\n\nuse ./hearth\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(work, 0o666); err != nil {
		t.Fatal(err)
	}
	t.Setenv("GOWORK", "") // the go command looks for go.work, as by default
	err := BuildSOLoader(context.Background(), src, filepath.Join(t.TempDir(), SOLoaderName))
	if !errors.Is(err, ErrNoSOLoader) || !strings.Contains(err.Error(), "Go workspace "+work) {
		t.Fatalf("got %v", err)
	}

	// The user's own workspace is used (the build then fails here: this
	// checkout has no cmd/hearth-soload).
	if err := os.Chmod(work, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := checkWorkspace(context.Background(), src); err != nil {
		t.Fatalf("the user's own go.work: %v", err)
	}
	if os.Getuid() != 0 {
		return // only root can give a file to another user here
	}
	if err := os.Chown(work, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if err := checkWorkspace(context.Background(), src); err == nil || !strings.Contains(err.Error(), "another user") {
		t.Fatalf("another user's go.work: %v", err)
	}
}

// TestSOLoaderBuildHoldsNoManagerLock: building the loader runs the go
// command, which can take minutes on a cold cache; meanwhile the plugins
// page (List) answers. The stand-in go command blocks until the test has
// listed the plugins; with the build under the manager's lock, List would
// wait for it and the test would fail after a minute instead.
func TestSOLoaderBuildHoldsNoManagerLock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in go command is a shell script")
	}
	f := newFixture(t)
	bin, meet := t.TempDir(), t.TempDir()
	script := `#!/bin/sh
[ "$1" = env ] && exit 0
touch '` + meet + `/started'
while [ ! -e '` + meet + `/release' ]; do sleep 0.01; done
echo 'cgo: C compiler "gcc" not found' >&2
exit 1
`
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	soBuildFailed.Clear()
	t.Cleanup(soBuildFailed.Clear)
	plugins := t.TempDir()
	os.MkdirAll(filepath.Join(plugins, "slow"), 0o755)
	os.WriteFile(filepath.Join(plugins, "slow", "slow.so"), []byte("never opened"), 0o644)
	st, err := store.Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	o := f.opts
	o.HearthSrc = t.TempDir()
	m := NewManager(plugins, st, &o)
	defer m.Close()
	scanned := make(chan error, 1)
	go func() { scanned <- m.Scan(context.Background()) }()
	for !isFile(filepath.Join(meet, "started")) {
		select {
		case err := <-scanned:
			t.Fatalf("the scan ended without building the loader: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	listed := make(chan error, 1)
	go func() {
		_, err := m.List(context.Background())
		listed <- err
	}()
	select {
	case err := <-listed:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(time.Minute):
		t.Error("List waited for the loader's build")
	}
	os.WriteFile(filepath.Join(meet, "release"), nil, 0o644)
	if err := <-scanned; !errors.Is(err, ErrNoSOLoader) || !strings.Contains(err.Error(), "C compiler") {
		t.Fatalf("the scan: %v", err)
	}
	if list, _ := m.List(context.Background()); len(list) != 1 || !strings.Contains(list[0].Error, "C compiler") {
		t.Fatalf("list %+v", list)
	}
}

// TestSOLoaderBuildWithoutSecrets: the go command that builds the loader
// (and the C compiler and pkg-config it runs) gets where Go and its
// caches are, not the providers' keys or Hearth's token.
func TestSOLoaderBuildWithoutSecrets(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in go command is a shell script")
	}
	bin, dump := t.TempDir(), filepath.Join(t.TempDir(), "env")
	// It writes its environment, then the output file (-o is $3).
	script := "#!/bin/sh\n[ \"$1\" = env ] && exit 0\nenv > '" + dump + "'\necho '#!/bin/sh' > \"$3\"\nchmod +x \"$3\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("DEEPSEEK_API_KEY", "sk-secret-deepseek-0123456789")
	t.Setenv("HEARTH_TOKEN", "hearth-secret-token")
	t.Setenv("GOAUTH", "netrc-secret")
	t.Setenv("GOOGLE_API_KEY", "google-secret")
	t.Setenv("GOCACHE", "/tmp/somewhere-gocache")
	t.Setenv("CGO_CFLAGS", "-O1")
	t.Setenv("LC_ALL", "C.UTF-8")
	if err := BuildSOLoader(context.Background(), t.TempDir(), filepath.Join(t.TempDir(), SOLoaderName)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	for _, leak := range []string{"sk-secret-deepseek", "hearth-secret-token", "netrc-secret", "google-secret"} {
		if strings.Contains(env, leak) {
			t.Errorf("the build saw %s:\n%s", leak, env)
		}
	}
	for _, want := range []string{"GOCACHE=/tmp/somewhere-gocache\n", "CGO_CFLAGS=-O1\n", "CGO_ENABLED=1\n", "GOPROXY=off\n", "LC_ALL=C.UTF-8\n", "PATH=" + bin} {
		if !strings.Contains(env, want) {
			t.Errorf("the build lacks %q:\n%s", want, env)
		}
	}
}
