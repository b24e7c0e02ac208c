package xbot

import (
	"strings"
	"testing"
)

func TestMatchTool(t *testing.T) {
	for _, c := range []struct {
		m, name string
		want    bool
	}{
		{"", "x", true}, {"*", "x", true}, {"Shell*", "Shell", true}, {"Shell*", "ShellExec", true},
		{"Shell*", "shell", false}, {"*_list", "memo_list", true}, {"*git*", "run_git_cmd", true},
		{"greet", "greet", true}, {"greet", "greeter", false}, {"a|b", "b", true}, {"a*z", "abcz", true},
		{"a*z", "az", true}, {"a*b*c", "abc", true}, {"a*b*c", "acb", false}, {"ab*ba", "aba", false},
	} {
		if got := matchTool(c.m, c.name); got != c.want {
			t.Errorf("matchTool(%q, %q) = %v", c.m, c.name, got)
		}
	}
	if !matchTool("greet", "greet", "greeter__greet") || !matchTool("greeter__*", "greet", "greeter__greet") {
		t.Error("either name should match")
	}
}

func FuzzMatchTool(f *testing.F) {
	f.Add("Shell*", "Shell")
	f.Add("*a*b*", "xaybz")
	f.Add("a|*b", "cb")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := matchTool(pattern, name)
		if !strings.ContainsAny(pattern, "*|") && strings.TrimSpace(pattern) != "" && got != (strings.TrimSpace(pattern) == name) {
			t.Fatalf("literal %q vs %q: %v", pattern, name, got)
		}
		if !strings.Contains(pattern, "|") && strings.Contains(pattern, "*") && !strings.Contains(name, "*") {
			// The pattern with its stars removed always matches itself.
			lit := strings.ReplaceAll(strings.TrimSpace(pattern), "*", "")
			if !glob(strings.TrimSpace(pattern), lit) {
				t.Fatalf("glob %q does not match %q", pattern, lit)
			}
		}
	})
}
