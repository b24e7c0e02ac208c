package pluginhost

import (
	"fmt"
	"regexp"
	"strings"
)

// xbotMatcher is an xbot hook's tool matcher, compiled. xbot documents
// its matchers as globs on the tool name (empty or "*" matches all,
// "Shell*" a prefix, "*git*" a substring) and its own hook configuration
// takes "|" alternatives and regular expressions ("Edit|Write", "^mcp__",
// "File.*"), as Claude Code does. Both are accepted:
//
//   - empty or "*": every tool;
//   - only letters, digits, '_', '-', '*', '?', spaces and '|': one or
//     more globs separated by '|', each matching a whole name ('*' any
//     run of characters, '?' one character; spaces around an alternative
//     are ignored);
//   - anything else: a regular expression (Go's syntax) found anywhere in
//     the name, as in xbot.
//
// A name matches when the model's name (time__now) or the plugin's own
// name for the tool (now) does. A matcher that is neither is an error when
// the plugin activates: it never silently matches nothing, which for a
// PreToolUse guard would mean allowing every call.
type xbotMatcher struct {
	pattern string
	all     bool
	re      *regexp.Regexp
}

func compileXbotMatcher(pattern string) (xbotMatcher, error) {
	m := xbotMatcher{pattern: pattern}
	p := strings.TrimSpace(pattern)
	if p == "" || p == "*" {
		m.all = true
		return m, nil
	}
	if strings.Trim(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-*? |") == "" {
		var alts []string
		for _, alt := range strings.Split(p, "|") {
			alt = strings.TrimSpace(alt)
			if alt == "" {
				return m, fmt.Errorf("matcher %q: an empty alternative (a '|' too many?)", pattern)
			}
			if strings.ContainsRune(alt, ' ') {
				return m, fmt.Errorf("matcher %q: %q is not a tool name or glob (tool names have no spaces)", pattern, alt)
			}
			q := regexp.QuoteMeta(alt)
			q = strings.ReplaceAll(q, `\*`, `.*`)
			q = strings.ReplaceAll(q, `\?`, `.`)
			alts = append(alts, q)
		}
		m.re = regexp.MustCompile(`^(?:` + strings.Join(alts, "|") + `)$`)
		return m, nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		return m, fmt.Errorf("matcher %q is neither a glob nor a regular expression: %w", pattern, err)
	}
	m.re = re
	return m, nil
}

// match reports whether the hook is asked about the tool the model calls
// name (<plugin>__<tool>).
func (m xbotMatcher) match(name string) bool {
	if m.all {
		return true
	}
	if m.re.MatchString(name) {
		return true
	}
	_, local, ok := strings.Cut(name, "__")
	return ok && m.re.MatchString(local)
}

// matchTool reports whether the hook is asked about a tool the model
// calls model and its plugin registered as local (see xbotToolName).
func (m xbotMatcher) matchTool(model, local string) bool {
	if m.all {
		return true
	}
	return m.re.MatchString(model) || (local != "" && m.re.MatchString(local))
}
