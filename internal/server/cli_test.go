package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func newCLIServer(t *testing.T, run CLIRunner) *httptest.Server {
	t.Helper()
	s := New(newTestApp(t), &Options{Token: testToken, CLI: CLIHandler(run)})
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	return hs
}

func postCLI(t *testing.T, url, token, body string) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/v1/cli", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.Bytes()
}

func TestCLIRunsTheCommand(t *testing.T) {
	var got *CLIRequest
	hs := newCLIServer(t, func(_ context.Context, req *CLIRequest) *CLIResult {
		got = req
		return &CLIResult{Stdout: "out\n", Stderr: "err\n", Code: 3}
	})
	code, body := postCLI(t, hs.URL, testToken, `{"args":["settings","set","qq","token"],"stdin":"s3cret\n","cwd":"/tmp"}`)
	if code != http.StatusOK {
		t.Fatalf("status %d: %s", code, body)
	}
	var res CLIResult
	if err := json.Unmarshal(body, &res); err != nil || res != (CLIResult{"out\n", "err\n", 3}) {
		t.Fatalf("result %s (%v)", body, err)
	}
	if strings.Join(got.Args, " ") != "settings set qq token" || got.Stdin != "s3cret\n" || got.Cwd != "/tmp" {
		t.Fatalf("request %+v", got)
	}
}

func TestCLIRefusals(t *testing.T) {
	ran := false
	hs := newCLIServer(t, func(context.Context, *CLIRequest) *CLIResult { ran = true; return &CLIResult{} })
	for _, tc := range []struct {
		name, token, body string
		want              int
	}{
		{"no token", "wrong", `{"args":["tools"]}`, http.StatusUnauthorized},
		{"no args", testToken, `{"args":[]}`, http.StatusBadRequest},
		{"relative cwd", testToken, `{"args":["tools"],"cwd":"here"}`, http.StatusBadRequest},
		{"unknown field", testToken, `{"args":["tools"],"shell":"rm"}`, http.StatusBadRequest},
		{"too big", testToken, `{"args":["tools"],"stdin":"` + strings.Repeat("x", DefaultMaxBody) + `"}`, http.StatusRequestEntityTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, body := postCLI(t, hs.URL, tc.token, tc.body); code != tc.want {
				t.Fatalf("status %d, want %d: %s", code, tc.want, body)
			}
		})
	}
	if ran {
		t.Fatal("a refused request ran a command")
	}
}

func TestNoCLIRouteWithoutRunner(t *testing.T) {
	_, hs := newTestServer(t, newTestApp(t))
	if code, body := postCLI(t, hs.URL, testToken, `{"args":["tools"]}`); code != http.StatusNotFound || !strings.Contains(string(body), "no_cli") {
		t.Fatalf("status %d without Options.CLI", code)
	}
}

// FuzzCLIRequest feeds any body to POST /v1/cli: it answers, and the
// runner sees only checked requests.
func FuzzCLIRequest(f *testing.F) {
	f.Add(`{"args":["policy","set","x","ask"],"cwd":"/a","stdin":"v\n","env":{"A":"b"}}`)
	f.Add(`{"args":[]}`)
	f.Add(`{"args":["tools"],"cwd":"rel"}`)
	h := CLIHandler(func(_ context.Context, req *CLIRequest) *CLIResult {
		if len(req.Args) == 0 || (req.Cwd != "" && req.Cwd[0] != '/') {
			panic("unchecked request reached the runner")
		}
		return &CLIResult{}
	})
	f.Fuzz(func(t *testing.T, body string) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("POST", "http://127.0.0.1/v1/cli", strings.NewReader(body))
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK && rec.Code != http.StatusBadRequest {
			t.Fatalf("status %d", rec.Code)
		}
	})
}
