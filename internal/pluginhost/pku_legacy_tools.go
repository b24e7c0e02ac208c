package pluginhost

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk"
)

// A PKU manifest's legacy.tools maps old tool ids ("<old plugin>.<tool>")
// to tools of this plugin (docs/pku-wire.md, "Legacy ids"). On Hearth
// what an old tool id carries is the owner's policy mode for it (`hearth
// policy set OLD__TOOL ask|off|auto`, stored by qualified name): it moves
// to the new tool once, under the same conditions as the old id's
// settings (adoptLegacy), and is recorded beside them.

// LegacyPolicy is the policy store the modes of old tools are carried
// in; *policy.Engine has it.
type LegacyPolicy interface {
	// Override returns the owner's mode for a qualified tool name, "" if none.
	Override(tool string) sdk.Mode
	// SetOverride sets the owner's mode for a qualified tool name.
	SetOverride(ctx context.Context, tool string, mode sdk.Mode) error
}

// LegacyTool is one old tool whose policy mode was carried over.
type LegacyTool struct {
	Old  string   `json:"old"` // the old qualified name, OLD__TOOL
	New  string   `json:"new"` // the new qualified name, PLUGIN__TOOL
	Mode sdk.Mode `json:"mode"`
}

// adoptLegacyTools carries the owner's policy modes of the old tools in
// legacy (old "<plugin>.<tool>" -> a tool name of this plugin) to the
// tools this run registered. An old tool is carried once (the record
// says which were), only from an old id nothing says is another plugin's
// (legacyTaken), only to a tool of this plugin that has no mode of the
// owner's yet; when several old tools map to one new tool the strictest
// mode wins.
func (p *Process) adoptLegacyTools(legacy map[string]string, registered []string) {
	pol := p.opts.Policy
	if len(legacy) == 0 || pol == nil {
		return
	}
	list, err := LegacyCarried(p.opts.DataDir, p.name)
	if err != nil {
		p.log.Warn("legacy record not read: no tool modes carried", "err", err)
		return
	}
	done := map[string]bool{}
	for _, c := range list {
		for _, t := range c.Tools {
			done[t.Old] = true
		}
	}
	taken := map[string]string{}
	byOld := map[string][]LegacyTool{} // per old id
	want := map[string]sdk.Mode{}      // per new qualified name
	for _, oldTool := range sortedKeys(legacy) {
		id, local, ok := strings.Cut(oldTool, ".")
		newLocal := legacy[oldTool]
		if !ok || local == "" || id == p.name || settings.CheckPlugin(id) != nil || !slices.Contains(registered, newLocal) {
			continue
		}
		oldName, newName := id+tools.Separator+local, p.name+tools.Separator+newLocal
		mode := pol.Override(oldName)
		if done[oldName] || !mode.Valid() {
			continue
		}
		why, seen := taken[id]
		if !seen {
			why = p.legacyTaken(id)
			taken[id] = why
			if why != "" {
				p.log.Warn("legacy id not adopted: it belongs to another plugin", "old", id, "why", why)
			}
		}
		if why != "" {
			continue
		}
		byOld[id] = append(byOld[id], LegacyTool{Old: oldName, New: newName, Mode: mode})
		if cur, ok := want[newName]; !ok || stricter(mode, cur) {
			want[newName] = mode
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.StageTimeout)
	defer cancel()
	for _, id := range sortedKeys(byOld) {
		var carried []LegacyTool
		for _, t := range byOld[id] {
			t.Mode = want[t.New]
			if pol.Override(t.New) == "" {
				if err := pol.SetOverride(ctx, t.New, t.Mode); err != nil {
					p.log.Warn("legacy tool mode not carried over", "old", t.Old, "new", t.New, "err", err)
					continue
				}
			} else if pol.Override(t.New) != t.Mode {
				continue // the owner chose a mode for the new tool: it stands
			}
			carried = append(carried, t)
		}
		if len(carried) == 0 {
			continue
		}
		p.log.Info("legacy tool modes carried over", "old", id, "tools", len(carried))
		if err := p.recordLegacy(LegacyCarry{From: id, Tools: carried, At: time.Now().UTC()}); err != nil {
			p.log.Warn("legacy carry not recorded", "old", id, "err", err)
		}
	}
}

// stricter says whether mode a refuses more than b (off > ask > auto).
func stricter(a, b sdk.Mode) bool {
	rank := map[sdk.Mode]int{sdk.ModeAuto: 0, sdk.ModeAsk: 1, sdk.ModeOff: 2}
	return rank[a] > rank[b]
}

// legacyToolLine is how `hearth plugin show` prints a carried tool mode.
func legacyToolLine(t LegacyTool, at time.Time) string {
	return fmt.Sprintf("policy of %s carried over to %s: %s (%s)", t.Old, t.New, t.Mode, at.Format(time.DateTime))
}
