package pluginhost

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// A Dynamic description that fails when Hearth asks for it leaves the
// last good text (here the registration's) in the model's request.
func TestPKUDynamicDescriptionFallsBack(t *testing.T) {
	needProgram(t, "node")
	f := newFixture(t, llmtest.Reply{Text: "好"})
	dir, _ := filepath.Abs("testdata/pkudesc")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	ready(t, p)
	tool, ok := f.k.Tools().Lookup("pkudesc__now")
	if !ok || tool.Def.DescriptionFunc == nil {
		t.Fatalf("%+v", tool)
	}
	if out := f.k.Ask(context.Background(), kernel.Input{Injection: sdk.Injection{Channel: "test", Text: "几点"}}); out.Err != nil {
		t.Fatal(out.Err)
	}
	b, _ := json.Marshal(f.srv.Requests()[0])
	if !strings.Contains(string(b), "注册时的描述") {
		t.Fatalf("the request lost the description: %s", b)
	}
	if !strings.Contains(f.logs.String(), "the state is gone") {
		t.Fatalf("the failure was not logged:\n%s", f.logs.String())
	}
}

// A preference named like a secret is refused at load: preferences are
// read and changed by the assistant.
func TestPKURefusesSecretPreference(t *testing.T) {
	needProgram(t, "node")
	f := newFixture(t)
	dir, _ := filepath.Abs("testdata/pkusecret")
	p, err := Start(dir, &f.opts)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	waitStatus(t, p, "refused", func(s Status) bool { return s.LastError != "" })
	if st := p.Status(); !strings.Contains(st.LastError, "preference api_token: preferences are not secret") {
		t.Fatalf("%+v", st)
	}
	if _, ok := f.k.Tools().Lookup("pkusecret__x"); ok {
		t.Fatal("registered")
	}
}

// FuzzCheckPKU feeds checkPKU and Unsupported manifests as a plugin may
// send them: neither panics, and a refusal names what is wrong.
func FuzzCheckPKU(f *testing.F) {
	f.Add(`{"preferences":{"mode":{"title":"t","kind":"choice","options":[{"value":"a","label":"A"}]}},"dataSources":{"d":{"title":"d","tool":"x","ttlMs":1}}}`)
	f.Add(`{"providers":{"p":{"name":"P","models":[{"id":"m"}]}},"speech":{"s":{"name":"S","credentialFrom":"p"}},"ocr":{"o":{"name":"O","credentialFrom":"q"}}}`)
	f.Add(`{"preferences":{"api_key":{"kind":"text"}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		var m wire.PKUManifest
		if json.Unmarshal([]byte(s), &m) != nil {
			return
		}
		if err := checkPKU(&m, []string{"x"}); err != nil && err.Error() == "" {
			t.Fatal("an empty refusal")
		}
		Unsupported("p", &m)
		for name, pref := range m.Preferences {
			preferenceDef(name, pref, nil)
		}
	})
}
