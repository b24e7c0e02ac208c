package daemon

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/server"
)

// serveHere serves an app on dir from this process, as hearth serve would:
// the lock held, the token made, serve.json written.
func serveHere(t *testing.T, dir string) (*ServeInfo, *httptest.Server) {
	t.Helper()
	lock, err := datadir.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Release() })
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	if _, err := Token(dir); err != nil {
		t.Fatal(err)
	}
	s := server.New(a, &server.Options{TokenFunc: TokenSource(dir),
		CLI: server.CLIHandler(func(_ context.Context, req *server.CLIRequest) *server.CLIResult {
			return &server.CLIResult{Stdout: strings.Join(req.Args, " "), Code: 7}
		})})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	info := &ServeInfo{PID: os.Getpid(), URL: hs.URL, Listen: hs.Listener.Addr().String(), Started: time.Now()}
	if err := WriteServeFile(dir, info); err != nil {
		t.Fatal(err)
	}
	return info, hs
}

func TestFindNoServeFile(t *testing.T) {
	if _, err := Find(context.Background(), t.TempDir()); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("err %v, want ErrNoDaemon", err)
	}
}

// A serve.json whose daemon is gone (the lock is free) is not believed,
// and is removed.
func TestFindStaleServeFile(t *testing.T) {
	dir := t.TempDir()
	WriteServeFile(dir, &ServeInfo{PID: 999999, URL: "http://127.0.0.1:1", Started: time.Now()})
	if _, err := Find(context.Background(), dir); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("err %v, want ErrNoDaemon", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ServeFile)); !os.IsNotExist(err) {
		t.Fatalf("stale serve.json kept: %v", err)
	}
}

// A serve.json naming another pid than the lock's holder is stale too.
func TestFindServeFileOfAnotherPID(t *testing.T) {
	dir := t.TempDir()
	_, _ = serveHere(t, dir)
	WriteServeFile(dir, &ServeInfo{PID: os.Getpid() + 1, URL: "http://127.0.0.1:1", Started: time.Now()})
	if _, err := Find(context.Background(), dir); !errors.Is(err, ErrNoDaemon) {
		t.Fatalf("err %v, want ErrNoDaemon", err)
	}
}

func TestFindAndCallTheDaemon(t *testing.T) {
	dir := t.TempDir()
	_, _ = serveHere(t, dir)
	c, err := Find(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if c.PID != os.Getpid() {
		t.Fatalf("pid %d", c.PID)
	}
	res, err := c.RunCLI(context.Background(), &server.CLIRequest{Args: []string{"policy", "list"}})
	if err != nil || res.Stdout != "policy list" || res.Code != 7 {
		t.Fatalf("RunCLI %+v, %v", res, err)
	}
	// Rotated under the running server: the old client is refused with a
	// message saying what to do, a new Find works.
	if _, err := Rotate(dir); err != nil {
		t.Fatal(err)
	}
	_, err = c.Health(context.Background())
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusUnauthorized || apiErr.Code != "unauthorized" ||
		!strings.Contains(err.Error(), "hearth token") {
		t.Fatalf("old token: %v", err)
	}
	if _, err := Find(context.Background(), dir); err != nil {
		t.Fatalf("Find after rotate: %v", err)
	}
}

// A client with a wrong token gets a message saying what to do.
func TestWrongTokenIsExplained(t *testing.T) {
	dir := t.TempDir()
	info, _ := serveHere(t, dir)
	c := &Client{BaseURL: info.URL, Token: "wrong"}
	err := c.Do(context.Background(), "GET", "/v1/health", nil, nil)
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Status != 401 || !strings.Contains(err.Error(), "refused the token") {
		t.Fatalf("wrong token: %v", err)
	}
}

func TestErrorShapes(t *testing.T) {
	for _, tc := range []struct {
		body       string
		code, want string
	}{
		{`{"error":{"message":"bad","type":"invalid_request_error","code":"invalid_fields","fields":{"a":"b"}}}`, "invalid_fields", "bad"},
		{`<html>proxy</html>`, "bad_gateway", "<html>proxy</html>"},
		{``, "bad_gateway", "Bad Gateway"},
	} {
		e := parseError(http.StatusBadGateway, []byte(tc.body))
		if e.Code != tc.code || e.Message != tc.want {
			t.Errorf("%q: %+v", tc.body, e)
		}
	}
}

func FuzzParseServeInfo(f *testing.F) {
	f.Add([]byte(`{"pid":12,"url":"http://127.0.0.1:8420","listen":"127.0.0.1:8420","tls":false,"started":"2026-01-02T03:04:05Z"}`))
	f.Add([]byte(`{"pid":-1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := parseServeInfo(b)
		if err == nil && (info.PID <= 0 || info.URL == "") {
			t.Fatalf("accepted %+v", info)
		}
	})
}

func FuzzParseError(f *testing.F) {
	f.Add(401, []byte(`{"error":{"message":"no","code":"unauthorized"}}`))
	f.Add(500, []byte(`not json`))
	f.Fuzz(func(t *testing.T, status int, b []byte) {
		e := parseError(status, b)
		if e.Message == "" && len(b) > 0 {
			// an unparseable body is the message; an empty one the status text
			t.Fatalf("no message for %q", b)
		}
		_ = e.Error()
	})
}
