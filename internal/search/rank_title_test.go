package search

import (
	"strings"
	"testing"
)

func TestIndexText(t *testing.T) {
	got := IndexText(" 路由器设置 ", "body")
	if want := strings.Repeat("路由器设置\n", TitleWeight) + "body"; got != want {
		t.Errorf("IndexText = %q, want %q", got, want)
	}
	if got := IndexText("  ", "body"); got != "body" {
		t.Errorf("IndexText without a title = %q", got)
	}
	// The title's terms count TitleWeight times, the body's once.
	x := NewIndex()
	x.Add("titled", IndexText("mesh router", "the upstairs room"))
	x.Add("plain", "mesh router\nthe upstairs room")
	if hits := x.Search("router", 2); len(hits) != 2 || hits[0].ID != "titled" {
		t.Errorf("Search(router) = %v, want the titled document first", hits)
	}
}
