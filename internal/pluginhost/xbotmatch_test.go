package pluginhost

import (
	"strconv"
	"strings"
	"testing"
)

func TestXbotMatcher(t *testing.T) {
	for _, tc := range []struct {
		matcher string
		match   []string
		not     []string
	}{
		{"", []string{"time__now", "shop__pay"}, nil},
		{" * ", []string{"time__now"}, nil},
		{"now", []string{"time__now"}, []string{"time__nowait", "shop__pay", "now__later"}},
		{"now|pay", []string{"time__now", "shop__pay"}, []string{"shop__payout", "list__all"}},
		{"time__now | pay", []string{"time__now", "shop__pay"}, []string{"clock__now"}},
		{"Shell*", []string{"x__Shell", "x__ShellExec"}, []string{"x__MyShell"}},
		{"*danger*", []string{"shop__dangerous_buy", "com-example__dangerous_delete"}, []string{"shop__buy"}},
		{"*Deploy", []string{"ci__BlueDeploy"}, []string{"ci__Deployer"}},
		{"n?w", []string{"time__now", "time__new"}, []string{"time__nw"}},
		{"web-search", []string{"x__web-search"}, []string{"x__websearch"}},
		{"^mcp__", []string{"mcp__github"}, []string{"x__amcp__github", "shop__pay"}},
		{"File.*", []string{"x__FileCreate", "x__MyFileReplace"}, []string{"x__file"}},
		{"Edit|Write.*", []string{"x__Edit", "x__WriteAll", "x__Editor"}, []string{"x__Read"}},
	} {
		t.Run(strconv.Quote(tc.matcher), func(t *testing.T) {
			m, err := compileXbotMatcher(tc.matcher)
			if err != nil {
				t.Fatalf("%q: %v", tc.matcher, err)
			}
			for _, name := range tc.match {
				if !m.match(name) {
					t.Errorf("%q does not match %s", tc.matcher, name)
				}
			}
			for _, name := range tc.not {
				if m.match(name) {
					t.Errorf("%q matches %s", tc.matcher, name)
				}
			}
		})
	}
	for _, bad := range []string{"[", "now||pay", "|now", "now|", "now (", "a b", "(?=x)", `\`} {
		t.Run(strconv.Quote(bad), func(t *testing.T) {
			if _, err := compileXbotMatcher(bad); err == nil || !strings.Contains(err.Error(), "matcher") {
				t.Errorf("%q accepted (%v)", bad, err)
			}
		})
	}
}
