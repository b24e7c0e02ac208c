package scope

import (
	"context"
	"testing"
)

func TestConversation(t *testing.T) {
	cases := []struct {
		channel, chat, user, group string
		owner                      bool
		want                       Scope
	}{
		{"qq", "group:9", "u1", "9", false, "chat:qq/group:9"},
		{"qq", "group:9", "u1", "9", true, "chat:qq/group:9"}, // the owner in a group: the group's
		{"terminal", "", "", "", true, Owner},
		{"web", "abc", "me", "", true, Owner},
		{"qq", "user:5", "5", "", false, "user:qq/5"},
		{"plugin:calendar", "", "", "", false, "chat:plugin:calendar/-"},
		{"plugin:calendar", "c1", "", "", false, "chat:plugin:calendar/c1"},
	}
	for _, c := range cases {
		if got := Conversation(c.channel, c.chat, c.user, c.group, c.owner); got != c.want || !got.Valid() {
			t.Errorf("Conversation(%q,%q,%q,%q,%v) = %q, want %q", c.channel, c.chat, c.user, c.group, c.owner, got, c.want)
		}
	}
}

func TestViews(t *testing.T) {
	g := Chat("qq", "group:1")
	a := For("plugA", g, false)
	if !a.Sees("plugA", g) || !a.Sees("plugA", Global) || a.Sees("plugB", g) || a.Sees("plugA", Chat("qq", "group:2")) || a.Sees("", Global) {
		t.Fatalf("plugin view %+v", a)
	}
	if a.Write != g || !a.Owns("plugA", g) || a.Owns("plugB", g) {
		t.Fatalf("plugin writes %+v", a)
	}
	shared := For("plugA", g, true)
	if !shared.Sees("plugB", g) || shared.Owns("plugB", g) || shared.Sees("plugB", Owner) {
		t.Fatalf("shared view %+v", shared)
	}
	owner := For("", Global, true)
	if !owner.Owns("plugB", Global) || owner.Sees("plugB", g) || owner.Write != Global {
		t.Fatalf("owner view %+v", owner)
	}
	if v := For("p", "bogus", false); v.Write != Global || len(v.Read) != 1 {
		t.Fatalf("invalid scope %+v", v)
	}
	for _, s := range []Scope{"", "user:", "user:qq/", "user:/x", "chat:qq", "x:qq/1", "chat:qq/1\x00"} {
		if s.Valid() {
			t.Errorf("%q valid", s)
		}
	}
	if From(context.Background()) != Global || From(With(context.Background(), g)) != g {
		t.Fatal("context scope")
	}
}

func TestEverything(t *testing.T) {
	e := Everything()
	g := Chat("qq", "group:1")
	if !e.Sees("plugB", g) || !e.Owns("plugB", g) || !e.Sees("", Owner) || e.Write != Global {
		t.Fatalf("everything %+v", e)
	}
}
