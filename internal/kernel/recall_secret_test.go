package kernel

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A remembered fact holding a credential is not repeated into every
// later request that recalls it (nor given to the stages): the recall
// message masks what looks like a key, as traces and events do.
func TestRecallMasksKeys(t *testing.T) {
	const key = "sk-proj-Abcdefgh12345678Zyx"
	rec := &fakeRecall{facts: map[scope.Scope][]string{
		scope.Owner: {"Bob's billing account uses the key " + key},
	}}
	e := newEnv(t, Options{Recall: rec}, llmtest.Reply{Text: "ok"})
	var seen []sdk.MemItem
	load(t, e.k, "watcher", func(s *sdk.PluginSDK) error {
		s.RegisterStage(sdk.StagePreAction, func(c *sdk.StageContext) error {
			seen = c.Memory
			return nil
		})
		return nil
	})
	e.ask(t, "which billing account does Bob use?")
	msg := memoryMessage(e.srv.Requests()[0])
	if !strings.Contains(msg, "Bob's billing account") {
		t.Fatalf("not recalled: %q", msg)
	}
	if strings.Contains(msg, key) {
		t.Fatalf("the key reached the model: %q", msg)
	}
	if len(seen) != 1 || strings.Contains(seen[0].Content, key) {
		t.Fatalf("the stages saw %+v", seen)
	}
}
