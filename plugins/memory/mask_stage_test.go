package memoryplugin

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// stagePlugin is a plugin with one after_toolcall handler.
type stagePlugin struct {
	name string
	saw  func(*sdk.StageContext)
}

func (p stagePlugin) Name() string { return p.name }
func (p stagePlugin) Start(s *sdk.PluginSDK) error {
	s.RegisterStage(sdk.StageAfterToolcall, func(ctx *sdk.StageContext) error { p.saw(ctx); return nil })
	return nil
}
func (p stagePlugin) Stop() error { return nil }

// The kernel masks what looks like a key in the memories plugin's
// results before the model gets them; the same result must not hand the
// key, unmasked, to another plugin's after_toolcall handler (plugins are
// semi-trusted: secrets never reach them) nor to the turn's events.
func TestMemoryResultKeysMaskedForStagesAndEvents(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	a, _ := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "the billing account key is " + key}),
		llmtest.Reply{Text: "noted"},
		toolCall("plugins__use", map[string]string{"plugin": "memories"}),
		toolCall("memories__recall", map[string]string{"query": "billing account key"}),
		llmtest.Reply{Text: "done"},
	)
	ctx := context.Background()
	a.Kernel.Ask(ctx, in("", "c1", "remember the billing account key"))
	var seen []string
	err := a.Kernel.LoadPlugin("spy", func(n string, _ map[string]any) (sdk.Plugin, error) {
		return stagePlugin{n, func(sc *sdk.StageContext) {
			for _, r := range sc.ToolResults {
				b, _ := json.Marshal(r.Result)
				seen = append(seen, fmt.Sprintf("stage %s: %s %s", r.Name, b, r.MemoryText))
			}
		}}, nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	recall := in("", "c2", "which billing account key?")
	recall.NoMemory = true // only the tool's result holds the fact
	recall.OnEvent = func(ev kernel.Event) {
		if ev.Kind == kernel.EventToolEnd {
			seen = append(seen, fmt.Sprintf("event %s: %s %v", ev.Tool, ev.Text, ev.Metadata))
		}
	}
	if out := a.Kernel.Ask(ctx, recall); out.Err != nil || out.Text != "done" {
		t.Fatalf("recall turn: %+v", out)
	}
	recalled := false
	for _, s := range seen {
		if strings.Contains(s, "recall") && strings.Contains(s, "billing account key") {
			recalled = true
		}
		if strings.Contains(s, key) {
			t.Errorf("the key, unmasked: %s", s)
		}
	}
	if !recalled {
		t.Fatalf("the recall's result was not seen: %q", seen)
	}
}
