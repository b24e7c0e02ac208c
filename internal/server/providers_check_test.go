package server

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/hearth-agent/hearth/internal/config"
)

// keyCatcher is a provider that records the Authorization header of every
// request and answers 500.
type keyCatcher struct {
	*httptest.Server
	mu   sync.Mutex
	auth []string
}

func newKeyCatcher(t *testing.T) *keyCatcher {
	t.Helper()
	c := &keyCatcher{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c.mu.Lock()
		c.auth = append(c.auth, r.Header.Get("Authorization"))
		c.mu.Unlock()
		w.WriteHeader(http.StatusInternalServerError)
	}))
	t.Cleanup(c.Close)
	return c
}

// got reports whether the catcher was sent key as a bearer token.
func (c *keyCatcher) got(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Contains(c.auth, "Bearer "+key)
}

// TestProviderNewOriginNeedsTheKeyAgain: changing only base_url to another
// origin is refused on api_key (nothing written, the old key sent nowhere
// new); with the key given again it is saved and that key goes there; a
// change of path on the same origin keeps the stored key.
func TestProviderNewOriginNeedsTheKeyAgain(t *testing.T) {
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	good, evil := newKeyCatcher(t), newKeyCatcher(t)
	answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/ds", `{"base_url":"`+good.URL+`/v1","model":"m","api_key":"`+newKey+`"}`), http.StatusOK)
	before, _ := os.ReadFile(filepath.Join(a.DataDir, config.FileName))

	for _, body := range []string{
		`{"base_url":"` + evil.URL + `/v1"}`,
		`{"base_url":"` + evil.URL + `/v1","model":"other"}`,
		`{"base_url":"` + evil.URL + `/v1","api_key_env":""}`, // clears nothing: the key stays
	} {
		e := answerAs[apiError](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/ds", body), http.StatusUnprocessableEntity)
		if e.Error.Fields["api_key"] != msgKeyForNewOrigin {
			t.Errorf("%s: fields %v, want api_key: %q", body, e.Error.Fields, msgKeyForNewOrigin)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(a.DataDir, config.FileName)); string(after) != string(before) {
		t.Fatalf("a refused change was written:\n%s\nwas\n%s", after, before)
	}
	sendAPI(t, "POST", hs.URL+"/v1/providers/ds/test", "").Body.Close()
	if evil.got(newKey) || !good.got(newKey) {
		t.Fatalf("the stored key went to the new address (evil %v, good %v)", evil.auth, good.auth)
	}

	// Same origin, another path: the key stays.
	answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/ds", `{"base_url":"`+good.URL+`/v2"}`), http.StatusOK)
	// The key given again: saved, and that key is the one sent.
	const second = "sk-second-key-for-the-new-host-0123"
	p := answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/ds", `{"base_url":"`+evil.URL+`/v1","api_key":"`+second+`"}`), http.StatusOK)
	if p.BaseURL != evil.URL+"/v1" || !p.KeySet {
		t.Fatalf("provider %+v", p)
	}
	sendAPI(t, "POST", hs.URL+"/v1/providers/ds/test", "").Body.Close()
	if evil.got(newKey) || !evil.got(second) {
		t.Fatalf("new address got %v, want only the new key", evil.auth)
	}
	// A key removed with the move is no key sent: allowed.
	p = answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/ds", `{"base_url":"`+good.URL+`/v1","api_key":""}`), http.StatusOK)
	if p.KeySet {
		t.Fatalf("key still set after api_key \"\": %+v", p)
	}
}

func TestSameProviderOrigin(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://api.deepseek.com/v1", "https://API.deepseek.com/beta", true},
		{"https://api.deepseek.com/v1", "https://api.deepseek.com:443/v1", true},
		{"http://127.0.0.1/v1", "http://127.0.0.1:80/v1", true},
		{"https://api.deepseek.com/v1", "http://api.deepseek.com/v1", false},
		{"https://api.deepseek.com/v1", "https://api.deepseek.com:8443/v1", false},
		{"https://api.deepseek.com/v1", "https://api.deepseek.com.evil.test/v1", false},
		{"http://127.0.0.1:11434/v1", "http://127.0.0.1:11435/v1", false},
		{"", "https://h/v1", false},
	} {
		if got := sameProviderOrigin(tc.a, tc.b); got != tc.same {
			t.Errorf("sameProviderOrigin(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// A source moved to another origin carries neither its key nor its key
// variable, however the request clears the other one.
func TestProviderMoveCarriesNoKey(t *testing.T) {
	empty, evil := "", "https://evil.test/v1"
	for _, old := range []config.SourceConfig{
		{BaseURL: "https://api.deepseek.com/v1", Model: "m", APIKey: "sk-old-0123456789"},
		{BaseURL: "https://api.deepseek.com/v1", Model: "m", APIKeyEnv: "GITHUB_TOKEN"}, // written by hand
	} {
		for _, u := range []ProviderUpdate{
			{BaseURL: &evil},
			{BaseURL: &evil, APIKey: &empty},
			{BaseURL: &evil, APIKeyEnv: &empty},
		} {
			sc, fields := checkProviderUpdate("ds", true, old, u)
			if len(fields) == 0 && (sc.APIKey != "" || sc.APIKeyEnv != "") {
				t.Errorf("old %+v, update %+v: accepted with key %q / env %q", old, u, sc.APIKey, sc.APIKeyEnv)
			}
		}
	}
}

// TestProviderKeyEnvOnlyAPIKeyNames: over the API a source reads its key
// only from a variable named *_API_KEY, so no other secret of the daemon's
// environment can be sent to an address of the caller's choosing; the
// value read is masked like a key.
func TestProviderKeyEnvOnlyAPIKeyNames(t *testing.T) {
	t.Setenv("REVIEW_UNRELATED_SECRET", "ghp_unrelated-secret-of-the-owner")
	t.Setenv("HEARTH_TEST_API_KEY", "sk-from-the-environment-0123456789")
	a := newTestApp(t)
	_, hs := newTestServer(t, a)
	evil := newKeyCatcher(t)
	for _, name := range []string{"REVIEW_UNRELATED_SECRET", "GITHUB_TOKEN", "API_KEY", "X_API_KEY_2", "OPENAI_API_KEYS"} {
		e := answerAs[apiError](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/x", `{"base_url":"`+evil.URL+`","model":"m","api_key_env":"`+name+`"}`),
			http.StatusUnprocessableEntity)
		if e.Error.Fields["api_key_env"] != msgEnvName {
			t.Errorf("%s: fields %v", name, e.Error.Fields)
		}
	}
	if _, err := os.Stat(filepath.Join(a.DataDir, config.FileName)); err == nil {
		t.Fatal("a refused source was written")
	}
	p := answerAs[Provider](t, sendAPI(t, "PUT", hs.URL+"/v1/providers/x", `{"base_url":"`+evil.URL+`","model":"m","api_key_env":"HEARTH_TEST_API_KEY"}`), http.StatusOK)
	if !p.KeySet || p.APIKeyEnv != "HEARTH_TEST_API_KEY" {
		t.Fatalf("provider %+v", p)
	}
	sendAPI(t, "POST", hs.URL+"/v1/providers/x/test", "").Body.Close()
	if evil.got("ghp_unrelated-secret-of-the-owner") || !evil.got("sk-from-the-environment-0123456789") {
		t.Fatalf("sent %v", evil.auth)
	}
	if got := a.Sources.Redact("key sk-from-the-environment-0123456789"); got == "key sk-from-the-environment-0123456789" {
		t.Errorf("the variable's value is not masked: %q", got)
	}
}
