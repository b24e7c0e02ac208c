package toolcall

import (
	"fmt"
	"strings"

	"github.com/hearth-agent/hearth/sdk"
)

// Limits on the images of one result (sdk.ImageResult). Images beyond
// them are dropped, and the result's text says so, so the model knows it
// did not see everything.
const (
	MaxImages     = 4
	MaxImageBytes = 5 << 20
)

// collectImages keeps the images within the limits, in order, and returns
// a note for the model about any it dropped (empty when none was). An
// image with no data or a MIME type that is not image/* is dropped too:
// it would be sent to the model as a picture.
func collectImages(images []sdk.Image) ([]sdk.Image, string) {
	var kept []sdk.Image
	var dropped []string
	for i, im := range images {
		switch {
		case im.URL != "":
			if why := urlProblem(im); why != "" {
				dropped = append(dropped, fmt.Sprintf("image %d %s", i+1, why))
			} else if len(kept) == MaxImages {
				dropped = append(dropped, fmt.Sprintf("image %d is over the limit of %d images per result", i+1, MaxImages))
			} else {
				kept = append(kept, sdk.Image{URL: im.URL})
			}
		case len(im.Data) == 0 || !validImageType(im.MIMEType):
			dropped = append(dropped, fmt.Sprintf("image %d is not an image Hearth can pass on", i+1))
		case len(im.Data) > MaxImageBytes:
			dropped = append(dropped, fmt.Sprintf("image %d is %d bytes, over the limit of %d bytes (5 MiB)", i+1, len(im.Data), MaxImageBytes))
		case len(kept) == MaxImages:
			dropped = append(dropped, fmt.Sprintf("image %d is over the limit of %d images per result", i+1, MaxImages))
		default:
			kept = append(kept, im)
		}
	}
	if len(dropped) == 0 {
		return kept, ""
	}
	return kept, "[Hearth dropped images of this result: " + strings.Join(dropped, "; ") + ".]"
}

// validImageType reports whether mime is image/<subtype>, with a subtype
// of letters, digits and + - . only (it goes into a data: URL).
func validImageType(mime string) bool {
	sub, ok := strings.CutPrefix(mime, "image/")
	if !ok || sub == "" || len(sub) > 64 {
		return false
	}
	for _, c := range sub {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

// MaxImageURL is the longest http(s) URL an image may have (sdk.Image.URL).
const MaxImageURL = 2048

// urlProblem says why an image's URL cannot be passed on, or "" when it
// can: an http(s) URL of at most MaxImageURL bytes, without spaces, and
// no bytes besides.
func urlProblem(im sdk.Image) string {
	lower := strings.ToLower(im.URL)
	switch {
	case len(im.Data) > 0:
		return "has both a URL and data"
	case !strings.HasPrefix(lower, "https://") && !strings.HasPrefix(lower, "http://"):
		return "has a URL that is not http(s)"
	case len(im.URL) > MaxImageURL:
		return fmt.Sprintf("has a URL of %d bytes, over the limit of %d", len(im.URL), MaxImageURL)
	case strings.ContainsAny(im.URL, " \t\r\n"):
		return "has a URL with spaces"
	}
	return ""
}
