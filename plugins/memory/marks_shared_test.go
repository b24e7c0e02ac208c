package memoryplugin

import (
	"context"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/kernel"
	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/llmtest"
)

// A chat in which the owner and a stranger both write (one session,
// turns of two scopes): the owner's correction of a fact the owner's
// turn was shown is the owner's scope's text. It goes to the owner's
// next turn there, never to the stranger's, whose recall cannot see the
// owner's entries either.
func TestCorrectionLineStaysInItsScopeInASharedChat(t *testing.T) {
	const secret = "Bob lives in Lyon, at 12 Quai Secret"
	a, srv := openApp(t, "",
		toolCall("memories__remember", map[string]string{"fact": "Bob lives in Paris"}),
		llmtest.Reply{Text: "noted"},
		llmtest.Reply{Text: "hi"}, // the stranger
		llmtest.Reply{Text: "ok"}, // the owner again
	)
	ctx := context.Background()
	if err := a.Store.SetRole(ctx, store.RoleAssignment{Channel: "qq", User: "boss", Role: "owner"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Policy.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	say := func(user, text string) kernel.Input {
		return kernel.Input{Injection: sdk.Injection{Channel: "qq", ChatID: "c1", UserID: user, Text: text}}
	}
	a.Kernel.Ask(ctx, say("boss", "remember that Bob lives in Paris"))
	if n, err := a.Kernel.MemoryChanged(ctx, "Bob lives in Paris", secret, scope.Owner, ""); err != nil || n != 1 {
		t.Fatalf("MemoryChanged: %d, %v", n, err)
	}
	a.Kernel.Ask(ctx, say("stranger", "hi"))
	a.Kernel.Ask(ctx, say("boss", "thanks"))
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for _, m := range reqs[2].Messages {
		if c, _ := m["content"].(string); strings.Contains(c, "Quai Secret") {
			t.Fatalf("the stranger's turn got the owner's correction: %q", c)
		}
	}
	if got := memoryLines(reqs[3]); !strings.Contains(got, "[更正] Bob lives in Paris → "+secret) {
		t.Fatalf("the owner's next turn: %q", got)
	}
}
