package tools

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// TestInsertMatchesRebuild registers tools one at a time in many orders,
// with short names shared (also in other case), plugins whose ids start
// others' (ai, ai_image), reserved and MCP plugins, and checks after each
// that the sorted list, the names offered and the short names are what a
// full rebuild computes.
func TestInsertMatchesRebuild(t *testing.T) {
	type reg struct{ plugin, local string }
	all := []reg{
		{"memo", "memo_create"}, {"memo", "memo_list"}, {"memo", "other"},
		{"memo2", "memo_create"}, {"ai", "ai_image_generate"}, {"ai", "ai_chat"},
		{"ai_image", "ai_image_generate"}, {"ai-image", "ai_image_edit"},
		{"mcp-fs", "mcp_fs_read"}, {"plugins", "plugins_use"},
		{"memo", "MEMO_CREATE2"}, {"x", "memo_create2"}, {"memo", "memo_create2"},
		{"memo", "memo_a__b"}, {"weather", "weather_now"}, {"weather", "weather_Now2"},
		{"weather", "weather_now2"},
	}
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		order := slices.Clone(all)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		r := NewRegistry()
		if seed%3 == 0 {
			r.KnowPlugins("weather", "ai")
		}
		for _, e := range order {
			if _, err := r.Register(e.plugin, sdk.ToolDef{Name: e.local, Parameters: citySchema}, echo); err != nil {
				continue // reserved plugin names, duplicates
			}
			list, callNames := r.ListNamed()
			list, callNames = slices.Clone(list), slices.Clone(callNames)
			short := map[string]*Tool{}
			for k, v := range r.short {
				short[k] = v
			}
			r.mu.Lock()
			r.rebuild()
			r.mu.Unlock()
			wantList, wantNames := r.ListNamed()
			if !slices.Equal(list, wantList) || !slices.Equal(callNames, wantNames) {
				t.Fatalf("seed %d after %v: names %v, rebuild gives %v", seed, e, callNames, wantNames)
			}
			if len(short) != len(r.short) {
				t.Fatalf("seed %d after %v: %d short names, rebuild gives %d", seed, e, len(short), len(r.short))
			}
			for k, v := range r.short {
				if short[k] != v {
					t.Fatalf("seed %d after %v: short %q differs", seed, e, k)
				}
			}
		}
	}
}

// TestInsertKeepsHandedOutLists registers tools in bursts, with no reader
// between the registrations of a burst (insert then changes the list in
// place) and a list handed out between bursts: a handed-out list and its
// names never change afterwards, even when a later tool takes the short
// name of one in it away, and each burst ends where a rebuild of the same
// tools would.
func TestInsertKeepsHandedOutLists(t *testing.T) {
	type reg struct{ plugin, local string }
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 2))
		r := NewRegistry()
		r.KnowPlugins("a", "b", "c")
		var done []reg
		var held, heldCopies [][]*Tool
		var heldNames, copies [][]string
		for burst := range 6 {
			for range 1 + rng.IntN(8) {
				e := reg{[]string{"a", "b", "c"}[rng.IntN(3)], []string{"find", "list", "get", "put"}[rng.IntN(4)] + []string{"", "_x", "_y"}[rng.IntN(3)]}
				if _, err := r.Register(e.plugin, sdk.ToolDef{Name: e.local, Parameters: citySchema}, echo); err == nil {
					done = append(done, e) // a duplicate fails
				}
			}
			list, callNames := r.ListNamed()
			held, heldNames = append(held, list), append(heldNames, callNames)
			heldCopies, copies = append(heldCopies, slices.Clone(list)), append(copies, slices.Clone(callNames))
			for i := range held {
				if !slices.Equal(held[i], heldCopies[i]) || !slices.Equal(heldNames[i], copies[i]) {
					t.Fatalf("seed %d burst %d: the list handed out after burst %d changed: %v, was %v", seed, burst, i, heldNames[i], copies[i])
				}
			}
			want := NewRegistry()
			want.KnowPlugins("a", "b", "c")
			for _, e := range done {
				want.Register(e.plugin, sdk.ToolDef{Name: e.local, Parameters: citySchema}, echo)
			}
			want.mu.Lock()
			want.rebuild()
			want.mu.Unlock()
			wantList, wantNames := want.ListNamed()
			if len(list) != len(wantList) || !slices.Equal(callNames, wantNames) {
				t.Fatalf("seed %d burst %d: names %v, rebuild gives %v", seed, burst, callNames, wantNames)
			}
		}
	}
}
