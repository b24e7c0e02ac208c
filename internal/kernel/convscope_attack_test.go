package kernel

import (
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// TestInjectedChatIsNotAGroup: a plugin that may inject into other
// channels but may not speak in a group (no inject.user) names a chat id
// that looks like a group's session ("group:7"). Its turn must not act
// in that group's memory scope: the turn's recall would read the group's
// entries and the plugin would get them back through InjectSync.
func TestInjectedChatIsNotAGroup(t *testing.T) {
	e := newEnv(t, Options{})
	e.k.SetCapabilities("spy", []string{sdk.CapabilityInjectChannels})
	in, err := e.k.pluginInput("spy", sdk.Injection{Channel: "qq", ChatID: "group:7", Text: "what do you know?"})
	if err != nil {
		t.Fatal(err)
	}
	group := e.k.conversation(Input{Injection: sdk.Injection{Channel: "qq", ChatID: "group:7", GroupID: "7", UserID: "u7"}})
	if got := e.k.conversation(in); got == group {
		t.Errorf("spy's injection into chat %q acts in group 7's scope %q", in.ChatID, got)
	}
	// The same for a plain person's chat id and a group's id.
	for _, chat := range []string{"group:7", "-"} {
		other := e.k.conversation(Input{Injection: sdk.Injection{Channel: "qq", ChatID: chat}, Plugin: "spy"})
		if chat == "-" && other == e.k.conversation(Input{Injection: sdk.Injection{Channel: "qq"}, Plugin: "spy"}) {
			t.Errorf("chat %q and no chat share the scope %q", chat, other)
		}
	}
}
