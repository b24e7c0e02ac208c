package pluginhost

import (
	"maps"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/toolcall"
)

func TestMCPToolNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	got, skipped := mcpToolNames("mcp-gh", []string{"search", "files.read", "files_read", "a/b", "a.b", long, "", "中文"})
	want := map[string]string{
		"search":                                "search",
		"files_read":                            "files_read", // valid as given: kept
		"files_read_" + shortHash("files.read"): "files.read",
		"a_b_" + shortHash("a/b"):               "a/b", // two changed names meet: both get a suffix
		"a_b_" + shortHash("a.b"):               "a.b",
		long[:64-len("mcp-gh__")-7] + "_" + shortHash(long): long,
		"tool": "",
		"__":   "中文",
	}
	if !maps.Equal(got, want) || len(skipped) != 0 {
		t.Fatalf("got %v (skipped %v)\nwant %v", got, skipped, want)
	}
	if _, skipped := mcpToolNames(strings.Repeat("p", 60), []string{"x"}); len(skipped) != 1 {
		t.Fatal("a plugin name leaving no room must skip")
	}
}

// FuzzMCPToolNames checks the mapping of names a server sends: every
// result is a valid tool name, distinct, mapped back to a name the server
// gave, and the same for the same set in any order.
func FuzzMCPToolNames(f *testing.F) {
	f.Add("search", "files.read", "files_read")
	f.Add(strings.Repeat("y", 80), "a b", "")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		names := []string{a, b, c}
		uniq := map[string]bool{}
		var in []string
		for _, n := range names {
			if !uniq[n] {
				uniq[n] = true
				in = append(in, n)
			}
		}
		got, skipped := mcpToolNames("mcp-srv", in)
		if len(got)+len(skipped) != len(in) {
			t.Fatalf("%d in, %d out, %d skipped", len(in), len(got), len(skipped))
		}
		for local, orig := range got {
			if _, err := toolcall.Name("mcp-srv", local); err != nil {
				t.Fatal(err)
			}
			if !uniq[orig] {
				t.Fatalf("%q maps to %q, not given", local, orig)
			}
		}
		rev := append([]string(nil), in...)
		for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
			rev[i], rev[j] = rev[j], rev[i]
		}
		if again, _ := mcpToolNames("mcp-srv", rev); !maps.Equal(again, got) {
			t.Fatalf("order changes the map: %v vs %v", got, again)
		}
	})
}

func TestPluginFolderCannotTakeAnMCPName(t *testing.T) {
	for _, b := range []string{`{"id":"mcp-github","command":["x"]}`, `{"id":"mcp.github","runtime":"stdio","command":["x"]}`, `{"id":"x1","runtime":"mcp","command":["x"]}`} {
		if _, err := ParseManifest("plugin.json", []byte(b)); err == nil {
			t.Errorf("%s accepted", b)
		}
	}
}
