//go:build unix

package compat

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// startPyChild runs a test plugin of testdata/pku-py as a python3 child
// with the SDK Hearth provides on its PYTHONPATH, and hands back its
// connection after the handshake.
func startPyChild(t testing.TB, name string) *wire.Conn {
	t.Helper()
	root, err := scaffold.Provide(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("python3", "main.py")
	cmd.Dir = filepath.Join("testdata", "pku-py", name)
	cmd.Env = append(os.Environ(), "PYTHONPATH="+filepath.Join(root, "python"), "PYTHONDONTWRITEBYTECODE=1")
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	conn := wire.NewConn(out, in, nil)
	done := make(chan struct{})
	go func() { conn.Run(); close(done) }()
	t.Cleanup(func() {
		in.Close()
		<-done
		cmd.Wait()
	})
	var init wire.InitializeResult
	if err := conn.Call(context.Background(), wire.MethodInitialize,
		wire.InitializeParams{ProtocolVersions: []int{wire.ProtocolVersion}, Plugin: name}, &init); err != nil {
		t.Fatal(err)
	}
	return conn
}

// validPreference says whether Hearth may store v for the pyprefs
// preference name, by that preference's kind and input.
func validPreference(name string, v any) bool {
	switch name {
	case "flag":
		_, ok := v.(bool)
		return ok
	case "mode":
		return v == "fast" || v == "slow"
	case "note":
		s, ok := v.(string)
		return ok && len([]rune(s)) <= 20
	case "apps":
		list, ok := v.([]any)
		if !ok || len(list) > 3 {
			return false
		}
		for _, e := range list {
			if _, ok := e.(string); !ok {
				return false
			}
		}
		return true
	case "name":
		s, ok := v.(string)
		return ok && strings.TrimSpace(s) != ""
	}
	return false
}

// FuzzPythonPreferenceSet sends any JSON value to each preference of a
// Python plugin: the SDK takes exactly the values the preference's kind
// and input allow (answering "invalid params" for the rest, never failing
// otherwise), and get then answers what was set.
func FuzzPythonPreferenceSet(f *testing.F) {
	for _, seed := range []string{`true`, `"fast"`, `"medium"`, `["a","b"]`, `["a","b","c","d"]`, `[1]`, `null`,
		`"  x  "`, `"   "`, `{"a":1}`, `12.5`, `"一二三四五六七八九十一二三四五六七八九十一"`, `[]`, `"\u2028"`} {
		f.Add(seed)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		f.Fatalf("python3 is needed: %v", err)
	}
	conn := startPyChild(f, "pyprefs")
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, value string) {
		if !json.Valid([]byte(value)) || !utf8.ValidString(value) {
			return
		}
		var v any
		if err := json.Unmarshal([]byte(value), &v); err != nil {
			return
		}
		for _, name := range []string{"flag", "mode", "note", "apps", "name"} {
			err := conn.Call(ctx, wire.MethodPreferenceSet, wire.PreferenceParams{Name: name, Value: json.RawMessage(value)}, nil)
			var rerr *wire.Error
			switch {
			case err == nil:
				if !validPreference(name, v) {
					t.Fatalf("%s took %s", name, value)
				}
			case errors.As(err, &rerr) && rerr.Code == wire.CodeInvalidParams:
				if validPreference(name, v) {
					t.Fatalf("%s refused %s: %v", name, value, err)
				}
				continue
			default:
				t.Fatalf("%s: set %s: %v", name, value, err)
			}
			var got wire.PreferenceResult
			if err := conn.Call(ctx, wire.MethodPreferenceGet, wire.PreferenceParams{Name: name}, &got); err != nil {
				t.Fatalf("%s: get: %v", name, err)
			}
			var back any
			if err := json.Unmarshal(got.Value, &back); err != nil {
				t.Fatalf("%s: get answered %s: %v", name, got.Value, err)
			}
			if name == "name" {
				v = strings.TrimSpace(v.(string))
			}
			if !reflect.DeepEqual(back, v) {
				t.Fatalf("%s: set %s, got %s", name, value, got.Value)
			}
		}
	})
}
