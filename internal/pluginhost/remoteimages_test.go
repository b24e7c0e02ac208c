package pluginhost

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk/toolcall"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// A child's result with images reads as its value, with its note, and
// keeps only the images toolcall passes on.
func TestRemoteImages(t *testing.T) {
	text := "took it"
	res := &wire.ToolCallResult{Text: &text, Note: "[image: https://x.invalid] (not shown)", Images: []wire.Image{
		{MIMEType: "image/png", Data: []byte{1}}, {MIMEType: "text/html", Data: []byte("<b>")}}}
	r := toolcall.Encode(remoteImages(remoteResultValue(res), res))
	if r.Content != "took it\n[image: https://x.invalid] (not shown)\n[Hearth dropped images of this result: image 2 is not an image Hearth can pass on.]" ||
		len(r.Images) != 1 || r.Images[0].MIMEType != "image/png" {
		t.Fatalf("%q %+v", r.Content, r.Images)
	}
}

// FuzzRemoteToolResult decodes a child's tool.call result as the host
// does and encodes it for the model: within the limits, never a panic.
func FuzzRemoteToolResult(f *testing.F) {
	f.Add(`{"text":"a","images":[{"mimeType":"image/png","data":"AQ=="}],"note":"n"}`)
	f.Add(`{"value":{"x":1},"isError":true,"images":[{"mimeType":"image/x","data":""}]}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var res wire.ToolCallResult
		if json.Unmarshal([]byte(raw), &res) != nil {
			return
		}
		v := remoteResultValue(&res)
		if len(res.Images) > 0 || res.Note != "" {
			v = remoteImages(v, &res)
		}
		r := toolcall.Encode(v)
		if len(r.Images) > toolcall.MaxImages {
			t.Fatalf("%d images", len(r.Images))
		}
		for _, im := range r.Images {
			if len(im.Data) == 0 || len(im.Data) > toolcall.MaxImageBytes || !strings.HasPrefix(im.MIMEType, "image/") {
				t.Fatalf("%+v", im)
			}
		}
	})
}
