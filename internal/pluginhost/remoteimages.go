package pluginhost

import (
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// remoteImages returns a child's tool result value v with the images and
// note its result carried: it reads as v, and the kernel passes the
// images to a model that accepts them (toolcall.Encode applies
// the limits, MaxImages of MaxImageBytes, and notes what it drops).
func remoteImages(v any, res *wire.ToolCallResult) any {
	images := make([]sdk.Image, 0, len(res.Images))
	for _, im := range res.Images {
		images = append(images, sdk.Image{MIMEType: im.MIMEType, Data: im.Data, URL: im.URL})
	}
	return remoteImageResult{value: v, images: images, note: res.Note}
}

// remoteImageResult is a child's result with images (see remoteImages).
type remoteImageResult struct {
	value  any
	images []sdk.Image
	note   string
}

// ResultValue returns the value the result reads as.
func (r remoteImageResult) ResultValue() any { return r.value }

// ResultImages returns the result's images.
func (r remoteImageResult) ResultImages() []sdk.Image { return r.images }

// ResultNote returns the line added to the result's text.
func (r remoteImageResult) ResultNote() string { return r.note }

var _ sdk.ImageResult = remoteImageResult{}
