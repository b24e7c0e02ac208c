package kernel

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/llm"
)

func TestImageURLProblem(t *testing.T) {
	for url, ok := range map[string]bool{
		"https://x.invalid/a.png":                                  true,
		"HTTP://x.invalid/a.png":                                   true,
		"data:image/png;base64,AAAA":                               true,
		"data:image/svg+xml;base64,AAAA":                           true,
		"data:text/html;base64,AAAA":                               false,
		"data:image/png,AAAA":                                      false,
		"file:///etc/passwd":                                       false,
		"ftp://x.invalid/a.png":                                    false,
		"https://x.invalid/a b.png":                                false,
		"https://x.invalid/" + strings.Repeat("a", maxImageURLLen): false,
	} {
		if got := imageURLProblem(url) == ""; got != ok {
			t.Errorf("%.60q: ok %v, want %v (%s)", url, got, ok, imageURLProblem(url))
		}
	}
}

func FuzzImageURLProblem(f *testing.F) {
	for _, s := range []string{"https://x/a.png", "data:image/png;base64,AAAA", "data:,", "data:image/;base64,", "javascript:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, url string) {
		if imageURLProblem(url) != "" {
			return
		}
		lower := strings.ToLower(url)
		if !strings.HasPrefix(lower, "http://") && !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "data:image/") {
			t.Fatalf("accepted %q", url)
		}
	})
}

func TestReattachImages(t *testing.T) {
	images := []llm.Image{{URL: "https://x.invalid/a.png"}}
	msgs := reattachImages([]llm.Message{{Role: "user", Content: "hi"}, {Role: "assistant", Content: "hi"}, {Role: "user", Content: "hi"}}, "hi", images)
	if len(msgs[0].Images) != 0 || len(msgs[1].Images) != 0 || len(msgs[2].Images) != 1 {
		t.Fatalf("%+v", msgs)
	}
}
