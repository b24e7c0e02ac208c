package pluginhost

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"

	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// mcpMaxName is the longest name a model may see (plugin__tool).
const mcpMaxName = 64

var notToolChar = lazyRegexp(`[^a-zA-Z0-9_-]`)

// mcpToolNames maps the tool names an MCP server gives to Hearth's local
// tool names under plugin, so that plugin__local fits the provider limit
// (^[a-zA-Z0-9_-]{1,64}$). It returns local -> the server's name. Each
// character outside the allowed set becomes "_"; a name too long is cut
// and given a suffix of 6 hex digits of its hash; when two names map to
// the same one, each that was changed gets the suffix too (a name the
// server gave valid keeps it). The map depends only on the set of names.
// Names that cannot be mapped (a plugin name leaving no room) are
// returned in skipped.
func mcpToolNames(plugin string, tools []string) (local map[string]string, skipped []string) {
	room := mcpMaxName - len(plugin) - len(toolcall.Separator)
	local = map[string]string{}
	if room < 8 {
		return local, append(skipped, tools...)
	}
	sorted := append([]string(nil), tools...)
	sort.Strings(sorted)
	first := map[string]string{} // original -> sanitized
	count := map[string]int{}
	for _, t := range sorted {
		s := notToolChar().ReplaceAllString(t, "_")
		if s == "" {
			s = "tool"
		}
		first[t] = s
		count[s]++
	}
	for _, t := range sorted {
		s := first[t]
		if len(s) > room || (count[s] > 1 && s != t) {
			cut := min(len(s), room-7)
			s = s[:cut] + "_" + shortHash(t)
		}
		if _, dup := local[s]; dup {
			skipped = append(skipped, t)
			continue
		}
		local[s] = t
	}
	return local, skipped
}

// shortHash returns 6 hex digits of s's SHA-256.
func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:3])
}
