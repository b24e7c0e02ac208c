package toolcall

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

// pictures is a result carrying images, as an MCP tool's is.
type pictures struct {
	Text   string      `json:"text"`
	Images []sdk.Image `json:"-"`
}

func (p pictures) ResultImages() []sdk.Image { return p.Images }

func TestEncodeImages(t *testing.T) {
	png := sdk.Image{MIMEType: "image/png", Data: []byte("png")}
	big := sdk.Image{MIMEType: "image/jpeg", Data: bytes.Repeat([]byte{1}, MaxImageBytes+1)}
	for _, tc := range []struct {
		name   string
		images []sdk.Image
		kept   int
		note   string // part of the note; empty: no note
	}{
		{"none", nil, 0, ""},
		{"one", []sdk.Image{png}, 1, ""},
		{"four", []sdk.Image{png, png, png, png}, 4, ""},
		{"five", []sdk.Image{png, png, png, png, png}, 4, "image 5 is over the limit of 4 images"},
		{"too big", []sdk.Image{png, big, png}, 2, "image 2 is 5242881 bytes, over the limit"},
		{"not an image", []sdk.Image{{MIMEType: "text/html", Data: []byte("<b>")}, {MIMEType: "image/png;x=1", Data: []byte("p")}}, 0,
			"image 1 is not an image Hearth can pass on; image 2 is not"},
		{"empty", []sdk.Image{{MIMEType: "image/png"}}, 0, "image 1 is not an image"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Encode(pictures{Text: "a chart", Images: tc.images})
			if r.IsError {
				t.Fatalf("error result %q", r.Content)
			}
			if len(r.Images) != tc.kept {
				t.Errorf("kept %d images, want %d", len(r.Images), tc.kept)
			}
			if !strings.HasPrefix(r.Content, `{"text":"a chart"}`) {
				t.Errorf("content %q lost the text", r.Content)
			}
			if tc.note == "" && r.Content != `{"text":"a chart"}` {
				t.Errorf("content %q, want no note", r.Content)
			}
			if tc.note != "" && !strings.Contains(r.Content, "[Hearth dropped images of this result: "+tc.note) {
				t.Errorf("content %q, want a note containing %q", r.Content, tc.note)
			}
		})
	}
}

func TestEncodeImagesNotCountedInSize(t *testing.T) {
	im := sdk.Image{MIMEType: "image/png", Data: bytes.Repeat([]byte{1}, MaxResultBytes+10)}
	r := Encode(pictures{Text: "big", Images: []sdk.Image{im}})
	if r.IsError || len(r.Images) != 1 {
		t.Errorf("an image over the text limit but within the image limit: error %v, %d images", r.IsError, len(r.Images))
	}
}

// Stage handlers see the value a WithImages result reads as, not the
// wrapper (whose fields would cross the wire to a child's after_toolcall
// as {} and seem a changed result); the images stay in Images.
func TestEncodeWithImagesValueIsTheInnerValue(t *testing.T) {
	r := Encode(sdk.WithImages(map[string]any{"seen": 1}, []sdk.Image{{MIMEType: "image/png", Data: []byte("\x89PNG")}}))
	m, ok := r.Value.(map[string]any)
	if !ok || m["seen"] != 1 || len(r.Images) != 1 {
		t.Fatalf("value %#v, %d images", r.Value, len(r.Images))
	}
	b, _ := json.Marshal(r.Value)
	if string(b) != `{"seen":1}` {
		t.Fatalf("value crosses the wire as %s", b)
	}
}
