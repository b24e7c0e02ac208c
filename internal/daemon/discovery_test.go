package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	// Rotated under the running server: the old client cannot prove the
	// server (it proves the new token), so it sends nothing and says what
	// to do; a new Find works.
	if _, err := Rotate(dir); err != nil {
		t.Fatal(err)
	}
	_, err = c.Health(context.Background())
	if !errors.Is(err, ErrUnproven) || !strings.Contains(err.Error(), "hearth token") {
		t.Fatalf("old token: %v", err)
	}
	if _, err := Find(context.Background(), dir); err != nil {
		t.Fatalf("Find after rotate: %v", err)
	}
}

// A client with a wrong token cannot verify the server, so it sends
// nothing, and says what to do.
func TestWrongTokenIsExplained(t *testing.T) {
	dir := t.TempDir()
	info, _ := serveHere(t, dir)
	c := &Client{BaseURL: info.URL, Token: "wrong"}
	err := c.Do(context.Background(), "GET", "/v1/health", nil, nil)
	if !errors.Is(err, ErrUnproven) || !strings.Contains(err.Error(), "hearth token") {
		t.Fatalf("wrong token: %v", err)
	}
}

// squatter listens where serve.json points, as another local user who
// bound the daemon's port would, and records the Authorization headers it
// receives.
func squatter(t *testing.T, h http.HandlerFunc) (url string, auth func() []string) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }
}

// While the daemon drains (lock held, serve.json still there) another
// user binds its port: Find asks it to prove it knows the token, it
// cannot, and the token is never sent to it.
func TestFindDoesNotSendTheTokenToAPortSquatter(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"refuses": func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) },
		"guesses": func(w http.ResponseWriter, r *http.Request) {
			// It knows the pid and the protocol, not the token.
			fmt.Fprintf(w, `{"pid":%d,"proof":"%s"}`, os.Getpid(), server.HelloProof("a-guess-0123456789", r.URL.Query().Get("nonce")))
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			lock, err := datadir.Acquire(dir) // the daemon, still draining
			if err != nil {
				t.Fatal(err)
			}
			defer lock.Release()
			tok, err := Token(dir)
			if err != nil {
				t.Fatal(err)
			}
			url, auth := squatter(t, h)
			if err := WriteServeFile(dir, &ServeInfo{PID: os.Getpid(), URL: url, Started: time.Now()}); err != nil {
				t.Fatal(err)
			}
			_, err = Find(context.Background(), dir)
			if !errors.Is(err, ErrUnproven) || errors.Is(err, ErrNoDaemon) {
				t.Fatalf("Find: %v, want ErrUnproven", err)
			}
			got := auth()
			if len(got) == 0 {
				t.Fatal("Find asked nothing")
			}
			for _, a := range got {
				if a != "" || strings.Contains(a, tok) {
					t.Fatalf("Find sent %q to whoever listens on serve.json's port", a)
				}
			}
		})
	}
}

// A Client made by hand verifies the server before its first authorized
// request too.
func TestClientVerifiesBeforeSendingTheToken(t *testing.T) {
	url, auth := squatter(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	c := &Client{BaseURL: url, Token: "the-real-token-0123456789"}
	if _, err := c.RunCLI(context.Background(), &server.CLIRequest{Args: []string{"policy"}}); !errors.Is(err, ErrUnproven) {
		t.Fatalf("RunCLI: %v", err)
	}
	if got := auth(); len(got) != 1 || got[0] != "" {
		t.Fatalf("requests' Authorization: %q", got)
	}
}

// The real daemon's proof verifies; a client of the wrong pid does not.
func TestVerifyTheDaemon(t *testing.T) {
	dir := t.TempDir()
	info, _ := serveHere(t, dir)
	tok, _ := Token(dir)
	if err := (&Client{BaseURL: info.URL, Token: tok, PID: info.PID}).Verify(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := (&Client{BaseURL: info.URL, Token: tok, PID: info.PID + 1}).Verify(context.Background()); !errors.Is(err, ErrUnproven) {
		t.Fatalf("another pid: %v", err)
	}
}

// serve.json pins the certificate's fingerprint: the daemon's certificate
// is accepted, another one (or none) refused, whatever the files on disk say.
func TestFindPinsTheCertificateFingerprint(t *testing.T) {
	dir := t.TempDir()
	lock, err := datadir.Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	a, err := app.Open(context.Background(), &app.Options{DataDir: dir, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := Token(dir); err != nil {
		t.Fatal(err)
	}
	s := server.New(a, &server.Options{TokenFunc: TokenSource(dir)})
	hs := httptest.NewTLSServer(s.Handler())
	defer func() { s.Close(); hs.Close() }()
	pin := CertFingerprint(hs.Certificate().Raw)
	for _, tc := range []struct {
		name, fingerprint string
		ok                bool
	}{
		{"the daemon's", pin, true},
		{"upper case", strings.ToUpper(pin), true},
		{"another", CertFingerprint([]byte("another certificate")), false},
		{"none", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			WriteServeFile(dir, &ServeInfo{PID: os.Getpid(), URL: hs.URL, TLS: true, TLSFingerprint: tc.fingerprint,
				TLSCert: filepath.Join(dir, "no-such-file.pem"), Started: time.Now()})
			_, err := Find(context.Background(), dir)
			if (err == nil) != tc.ok {
				t.Fatalf("Find: %v", err)
			}
		})
	}
}

// WatchToken reports the first token and each rotation, once.
func TestWatchTokenReportsRotations(t *testing.T) {
	dir := t.TempDir()
	first, err := Token(dir)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	src := WatchToken(dir, func(tok string) { seen = append(seen, tok) })
	src()
	src()
	second, err := Rotate(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := src(); got != second {
		t.Fatalf("after rotate: %q", got)
	}
	src()
	if !slices.Equal(seen, []string{first, second}) {
		t.Fatalf("seen %q, want %q", seen, []string{first, second})
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
	f.Add([]byte(`{"pid":12,"url":"https://127.0.0.1:8420","tls":true,"tls_sha256":"00ff","started":"2026-01-02T03:04:05Z"}`))
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
