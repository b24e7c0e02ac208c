package toolcall

import (
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// An image given by http(s) URL is kept as given, within the count; any
// other URL, or a URL with bytes besides, is dropped with a note.
func TestCollectImageURLs(t *testing.T) {
	kept, note := collectImages([]sdk.Image{
		{URL: "https://x.invalid/a.png"},
		{URL: "file:///etc/passwd"},
		{URL: "https://x.invalid/b.png", Data: []byte{1}},
		{URL: "https://x.invalid/" + strings.Repeat("a", MaxImageURL)},
		{MIMEType: "image/png", Data: []byte{1}},
	})
	if len(kept) != 2 || kept[0].URL != "https://x.invalid/a.png" || kept[1].MIMEType != "image/png" {
		t.Fatalf("%+v", kept)
	}
	for _, s := range []string{"image 2 has a URL that is not http(s)", "image 3 has both a URL and data", "image 4 has a URL of"} {
		if !strings.Contains(note, s) {
			t.Fatalf("note lacks %q: %s", s, note)
		}
	}
}
