package llm

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/llmtest"
)

func TestSourcesSwitchLive(t *testing.T) {
	a := llmtest.NewServer(t, llmtest.Reply{Text: "from a"})
	b := llmtest.NewServer(t, llmtest.Reply{Text: "from b"})
	s, err := NewSources([]Source{
		{Name: "a", BaseURL: a.URL, Model: "ma"},
		{Name: "b", BaseURL: b.URL, Model: "mb"},
	}, "a")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.ListSources(); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Fatalf("ListSources = %v", got)
	}
	r1, err := s.Chat(context.Background(), &Request{}, nil)
	if err != nil || r1.Content != "from a" {
		t.Fatalf("%v %v", r1, err)
	}
	if err := s.SetSource("b"); err != nil {
		t.Fatal(err)
	}
	r2, err := s.Chat(context.Background(), &Request{}, nil)
	if err != nil || r2.Content != "from b" || s.CurrentSource() != "b" {
		t.Fatalf("%v %v", r2, err)
	}
	if b.Requests()[0].Model != "mb" {
		t.Fatalf("model %q", b.Requests()[0].Model)
	}
	if err := s.SetSource("nope"); err == nil {
		t.Fatal("SetSource of an unknown source succeeded")
	}
}

func TestNoSource(t *testing.T) {
	s, _ := NewSources(nil, "")
	if _, err := s.Chat(context.Background(), &Request{}, nil); !errors.Is(err, ErrNoSource) {
		t.Fatalf("err = %v", err)
	}
}

func TestMaskKey(t *testing.T) {
	if got := MaskKey("sk-1234567890abcdef"); got != "****cdef" {
		t.Fatal(got)
	}
	if got := (Source{Name: "x", APIKey: "sk-1234567890abcdef"}).String(); got == "" || strings.Contains(got, "1234567890") {
		t.Fatal(got)
	}
}

func TestSourcesRemove(t *testing.T) {
	s, err := NewSources([]Source{{Name: "a", BaseURL: "http://a", APIKey: "sk-aaaaaaaaaaaa"}, {Name: "b", BaseURL: "http://b"}}, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("a"); !errors.Is(err, ErrCurrentSource) {
		t.Fatalf("removing the current source: %v", err)
	}
	if err := s.SetSource("b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("a"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Source("a"); ok || len(s.ListSources()) != 1 {
		t.Fatalf("after remove: %v", s.ListSources())
	}
	if got := s.Redact("key sk-aaaaaaaaaaaa"); strings.Contains(got, "sk-aaaaaaaaaaaa") {
		t.Fatalf("a removed source's key is no longer masked: %q", got)
	}
}
