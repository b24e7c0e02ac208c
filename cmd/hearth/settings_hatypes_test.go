package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
)

// `hearth settings set` checks HomeAgent's ConfigDef types, in English
// with the Chinese beside it, and masks a password without Secret.
func TestSettingsSetHomeAgentTypes(t *testing.T) {
	home := t.TempDir()
	st, err := store.Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	svc := settings.New(st, home)
	for _, d := range []sdk.ConfigDef{
		{Key: "limit", Type: "int", Max: 50},
		{Key: "pass", Type: "password"},
		{Key: "style", Type: "select", Options: []string{"vivid", "natural"}},
	} {
		if err := svc.Register("time", d); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	base := []string{"HEARTH_HOME=" + home}
	for _, c := range []struct {
		key, value string
		want       []string
	}{
		{"limit", "51", []string{"above the maximum 50", "大于最大值"}},
		{"limit", "abc", []string{"want a whole number", "需要整数"}},
		{"style", "loud", []string{"is not one of", "不在可选项中"}},
	} {
		_, errOut, code := hearth(t, base, "", "settings", "set", "time", c.key, c.value)
		if code != 2 {
			t.Errorf("set %s %s: exit %d %q", c.key, c.value, code, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("set %s %s: %q lacks %q", c.key, c.value, errOut, w)
			}
		}
	}
	if out, errOut, code := hearth(t, base, "", "settings", "set", "time", "limit", "50"); code != 0 || out != "time.limit = 50\n" {
		t.Fatalf("set 50: %d %q %q", code, out, errOut)
	}
	if out, errOut, code := hearth(t, base, "", "settings", "set", "time", "pass", "hunter2"); code != 0 || strings.Contains(out, "hunter2") {
		t.Fatalf("set password: %d %q %q", code, out, errOut)
	}
	if out, _, _ := hearth(t, base, "", "settings", "time"); strings.Contains(out, "hunter2") || !strings.Contains(out, "(secret)") {
		t.Fatalf("list shows the password or no secret mark:\n%s", out)
	}
}
