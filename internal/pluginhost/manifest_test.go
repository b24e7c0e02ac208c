package pluginhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/names"
)

// pluginNameForm is what every accepted manifest's plugin name looks like:
// it becomes a tool prefix, a settings namespace and a folder name.
var pluginNameForm = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// fieldPhrases are how ParseManifest's own refusals name the field at
// fault.
var fieldPhrases = []string{`: id "`, `another id`, `: runtime "`, `"command"`, `capability group`, `defaultModes:`, `: timeout "`}

// FuzzParseManifest checks plugin.json's decoder: it never panics; what it
// accepts is runnable, named like a plugin and survives being written
// back and read again unchanged; what it refuses is refused with the
// file's path and, for a JSON object, the field at fault.
func FuzzParseManifest(f *testing.F) {
	for _, seed := range []string{
		`{"id":"weather","command":["./weather"]}`,
		`{"id":"pay","name":"Pay","version":"1.0","command":["python3","pay.py"],"capabilities":["llm","settings","kv"],"timeout":"30s","defaultModes":{"money":"ask"},"decisionHook":true}`,
		`{"id":"com.example.hello","runtime":"stdio","executable":"hello","contributes":{"hooks":[{"event":"PreToolUse"}]}}`,
		`{"id":"x-bot","runtime":"grpc","entry":"node  index.js --flag"}`,
		`{"id":"env","command":["a"],"env":{"K":"v"},"config":{"n":1.5,"list":[true,null,"s"]}}`,
		`{"id":"Broken!","command":["a"]}`,
		`{"id":"hearth","command":["a"]}`,
		`{"id":"ok","runtime":"wasm","command":["a"]}`,
		`{"id":"ok"}`,
		`{"id":"ok","command":["a"],"capabilities":["root"]}`,
		`{"id":"ok","command":["a"],"defaultModes":{"teleport":"auto"}}`,
		`{"id":"ok","command":["a"],"timeout":"-1s"}`,
		`{"id":"ok","command":"a"}`,
		`{"id":"___","runtime":"stdio","entry":"a"}`,
		`[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(seed))
	}
	const path = "plugins/x/plugin.json"
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(path, b)
		if err != nil {
			if m != nil {
				t.Fatalf("refused with a manifest: %v", err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, path+": ") {
				t.Fatalf("error does not start with the file's path: %q", msg)
			}
			var syntax *json.SyntaxError
			var typ *json.UnmarshalTypeError
			switch {
			case errors.As(err, &syntax):
			case errors.As(err, &typ):
				if bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")) && typ.Field == "" {
					t.Fatalf("type error names no field: %q", msg)
				}
			case !json.Valid(b):
				// other decoding errors (invalid UTF-8 in a name...) need
				// no field
			default:
				named := false
				for _, p := range fieldPhrases {
					named = named || strings.Contains(msg, p)
				}
				if !named {
					t.Fatalf("refusal names no field: %q", msg)
				}
			}
			return
		}
		checkAccepted(t, m)
		again, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("an accepted manifest cannot be written back: %v", err)
		}
		m2, err := ParseManifest(path, again)
		if err != nil {
			t.Fatalf("an accepted manifest, written back, is refused: %v\n%s", err, again)
		}
		if third, _ := json.Marshal(m2); !bytes.Equal(third, again) {
			t.Fatalf("written back twice differs:\n%s\n%s", again, third)
		}
	})
}

// checkAccepted states, independently of ParseManifest's code, what every
// accepted manifest satisfies.
func checkAccepted(t *testing.T, m *Manifest) {
	t.Helper()
	if len(m.Command) == 0 {
		t.Fatalf("accepted with nothing to run: %+v", m)
	}
	name := m.PluginName()
	if len(name) < 2 || len(name) > 41 || !pluginNameForm.MatchString(name) || strings.HasSuffix(name, "-") && m.Xbot() {
		t.Fatalf("accepted with plugin name %q (id %q)", name, m.ID)
	}
	if names.IsReserved(name) {
		t.Fatalf("accepted with the reserved name %q", name)
	}
	if !m.Xbot() && m.Runtime != "" && m.Runtime != "process" {
		t.Fatalf("accepted runtime %q", m.Runtime)
	}
	for _, g := range m.Capabilities {
		if !knownGroups[g] {
			t.Fatalf("accepted capability %q", g)
		}
	}
	for e, mode := range m.DefaultModes {
		if !e.Valid() || !mode.Valid() {
			t.Fatalf("accepted default mode %q: %q", e, mode)
		}
	}
	if (m.Timeout != "") != (m.ToolTimeout() > 0) {
		t.Fatalf("timeout %q gives tool timeout %v", m.Timeout, m.ToolTimeout())
	}
}
