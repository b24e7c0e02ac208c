package scope

import "testing"

// TestConversationChatIDsNeverPoseAsGroups: whoever picks a chat id
// (a plugin injecting without the right to speak in a group) never gets
// a group's scope, nor the scope of no chat.
func TestConversationChatIDsNeverPoseAsGroups(t *testing.T) {
	group := Conversation("qq", "any", "", "7", false)
	none := Conversation("qq", "", "", "", false)
	for _, chat := range []string{"group:7", "-", "~group:7", "~-"} {
		got := Conversation("qq", chat, "", "", false)
		if got == group || got == none {
			t.Errorf("chat %q acts in %q", chat, got)
		}
		if other := Conversation("qq", "~"+chat, "", "", false); other == got {
			t.Errorf("chats %q and %q share %q", chat, "~"+chat, got)
		}
	}
}

// FuzzConversation: whatever ids a chat app or a plugin sends, the
// conversation is a valid scope (an invalid one acts in Global), and
// two different chats (or users, or groups) never share one.
func FuzzConversation(f *testing.F) {
	f.Add("a\nb", "a\x00b", "~x610a62")
	f.Add("group:7", "-", "~")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		for _, id := range []string{a, b, c} {
			if id == "" {
				continue
			}
			for _, s := range []Scope{Conversation("qq", id, "", "", false), Conversation("qq", "", id, "", false),
				Conversation("qq", "", "", id, false)} {
				if !s.Valid() {
					t.Fatalf("id %q gives the invalid scope %q", id, s)
				}
			}
		}
		if a != b && a != "" && b != "" {
			for _, mk := range []func(string) Scope{
				func(id string) Scope { return Conversation("qq", id, "", "", false) },
				func(id string) Scope { return Conversation("qq", "", id, "", false) },
				func(id string) Scope { return Conversation("qq", "", "", id, false) },
			} {
				if mk(a) == mk(b) {
					t.Fatalf("ids %q and %q share %q", a, b, mk(a))
				}
			}
		}
	})
}
