package pluginhost

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/sdk"
)

// mcpResult is an MCP tool's answer as a Hearth tool result: text for the
// model (sdk/toolcall encodes it through its textResult interface) and the
// images a model that accepts them gets (sdk.ImageResult).
type mcpResult struct {
	text   string
	isErr  bool
	images []sdk.Image
}

var _ sdk.ImageResult = (*mcpResult)(nil)

// Text returns the content for the model.
func (r *mcpResult) Text() string { return r.text }

// IsError reports an error result (the server's isError).
func (r *mcpResult) IsError() bool { return r.isErr }

// ResultMetadata returns nothing: MCP results carry no renderer hints.
func (r *mcpResult) ResultMetadata() map[string]string { return nil }

// ResultImages returns the result's images.
func (r *mcpResult) ResultImages() []sdk.Image { return r.images }

// MarshalJSON encodes the result as its text, for callers that encode
// results as JSON rather than through toolcall.
func (r *mcpResult) MarshalJSON() ([]byte, error) { return json.Marshal(r.text) }

// convertMCPResult turns a CallToolResult into a Hearth result: text
// content joined by blank lines; structuredContent as JSON when there is
// no text, else after it unless it only repeats the text (the text is
// that JSON, or holds every leaf value of it); images kept
// and described; audio and blobs described; resource links and embedded
// text resources rendered as text. isError makes an error result.
func convertMCPResult(res *mcp.CallToolResult) *mcpResult {
	out := &mcpResult{isErr: res.IsError}
	var parts []string
	hasText := false
	for _, c := range res.Content {
		s, img := renderContent(c)
		if img != nil {
			out.images = append(out.images, *img)
		}
		if _, ok := c.(*mcp.TextContent); ok {
			hasText = true
		}
		if s != "" {
			parts = append(parts, s)
		}
	}
	if res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			if !hasText || !(containsJSON(parts, b) || leavesIn(b, strings.Join(parts, "\n"))) {
				parts = append(parts, string(b))
			}
		}
	}
	out.text = strings.Join(parts, "\n\n")
	return out
}

// containsJSON reports whether one of parts is the JSON value b (servers
// usually repeat their structured content as text).
func containsJSON(parts []string, b []byte) bool {
	var want any
	if json.Unmarshal(b, &want) != nil {
		return false
	}
	wb, _ := json.Marshal(want)
	for _, p := range parts {
		var got any
		if json.Unmarshal([]byte(p), &got) == nil {
			if gb, _ := json.Marshal(got); string(gb) == string(wb) {
				return true
			}
		}
	}
	return false
}

// leavesIn reports whether every leaf value of the JSON value b (a
// string as it is, a number or a boolean as JSON writes it) occurs in
// text: structured content that adds nothing to the text.
func leavesIn(b []byte, text string) bool {
	var v any
	if json.Unmarshal(b, &v) != nil {
		return false
	}
	var in func(v any) bool
	in = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				if !in(e) {
					return false
				}
			}
			return true
		case []any:
			for _, e := range x {
				if !in(e) {
					return false
				}
			}
			return true
		case string:
			return strings.Contains(text, x)
		case nil:
			return true
		default:
			lb, _ := json.Marshal(x)
			return strings.Contains(text, string(lb))
		}
	}
	return in(v)
}

// renderContent returns the text a model reads for one content block, and
// the image it carries, if any.
func renderContent(c mcp.Content) (string, *sdk.Image) {
	switch x := c.(type) {
	case *mcp.TextContent:
		return x.Text, nil
	case *mcp.ImageContent:
		return fmt.Sprintf("[image %s, %s]", x.MIMEType, sizeText(len(x.Data))), &sdk.Image{MIMEType: x.MIMEType, Data: x.Data}
	case *mcp.AudioContent:
		return fmt.Sprintf("[audio %s, %s]", x.MIMEType, sizeText(len(x.Data))), nil
	case *mcp.ResourceLink:
		s := "[resource " + x.URI
		if x.Name != "" {
			s += " (" + x.Name + ")"
		}
		if x.MIMEType != "" {
			s += ", " + x.MIMEType
		}
		s += "]"
		if x.Description != "" {
			s += " " + x.Description
		}
		return s, nil
	case *mcp.EmbeddedResource:
		if x.Resource == nil {
			return "", nil
		}
		return renderResourceContents(x.Resource), nil
	}
	return fmt.Sprintf("[content of a kind Hearth does not show: %T]", c), nil
}

// renderResourceContents renders a resource's contents: its text under
// its URI, or a description of binary data.
func renderResourceContents(r *mcp.ResourceContents) string {
	if r.Blob != nil && r.Text == "" {
		mime := r.MIMEType
		if mime == "" {
			mime = "application/octet-stream"
		}
		return fmt.Sprintf("[resource %s: %s, %s]", r.URI, mime, sizeText(len(r.Blob)))
	}
	return fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text)
}

// sizeText says how big n bytes are, as people read it.
func sizeText(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+512)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}
