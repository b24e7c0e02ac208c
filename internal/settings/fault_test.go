package settings

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/internal/store/storetest"
)

// A settings write the store refuses loses nothing: the value before it
// stays, the error names the setting and the store's reason, and another
// plugin's write is recorded in the audit log as failed. A write whose
// audit record cannot be made is not made.
func TestFailedWriteKeepsTheValue(t *testing.T) {
	f := storetest.Open(t)
	s := New(f, t.TempDir())
	qq, other := s.For("qq"), s.For("weather")
	if err := qq.Set("url", "ws://a"); err != nil {
		t.Fatal(err)
	}
	value := func() any {
		t.Helper()
		v, err := qq.Get("url")
		if err != nil {
			t.Fatal(err)
		}
		return v
	}

	f.FailAfter("SetSetting", 0, errors.New("database or disk is full"))
	err := qq.Set("url", "ws://b")
	if err == nil || !strings.Contains(err.Error(), "qq.url") || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("own write: %v", err)
	}
	if err := other.SetPlugin("qq", "url", "ws://c"); err == nil || !strings.Contains(err.Error(), "disk is full") {
		t.Fatalf("another plugin's write: %v", err)
	}
	if v := value(); v != "ws://a" {
		t.Fatalf("url = %v after failed writes", v)
	}

	f.Heal()
	f.FailAfter("AppendAudit", 0, nil)
	err = other.SetPlugin("qq", "url", "ws://d")
	if !errors.Is(err, storetest.ErrInjected) || !strings.Contains(err.Error(), "not written") {
		t.Fatalf("unaudited write: %v", err)
	}
	if v := value(); v != "ws://a" {
		t.Fatalf("url = %v after an unaudited write", v)
	}

	f.Heal()
	if err := qq.Set("url", "ws://e"); err != nil {
		t.Fatal(err)
	}
	if v := value(); v != "ws://e" {
		t.Fatalf("url = %v after healing", v)
	}
	entries, err := f.Audit(context.Background(), store.AuditQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Tool+" by "+e.User+": "+e.Decision+"/"+e.Outcome)
	}
	want := []string{ // newest first; the unaudited write left no entry
		"settings:qq.url by weather: allow/error",
		"settings:qq.url by weather: allow/written",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("audit:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
