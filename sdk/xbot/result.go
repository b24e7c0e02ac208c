package xbot

import (
	"fmt"
	"sort"
	"strings"
)

// ToolResult is a tool's structured output, as xbot's: the text for the
// model, the error flag, and metadata for renderers (a diff, a kind) that
// the model does not see.
//
// IsError is a field, as in xbot. The seed document writes it IsError();
// Go allows a field or a method of that name, not both, and xbot's
// plugins set and read the field, so the field it is.
type ToolResult struct {
	Content  string            `json:"content"`
	IsError  bool              `json:"is_error,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

// NewToolResult returns a successful result.
func NewToolResult(content string) *ToolResult { return &ToolResult{Content: content} }

// NewToolError returns a failed result; the model reads content.
func NewToolError(content string) *ToolResult { return &ToolResult{Content: content, IsError: true} }

// Text is the content the model reads.
func (r *ToolResult) Text() string {
	if r == nil {
		return ""
	}
	return r.Content
}

// String is Text, so that a formatter's result prints as its text.
func (r *ToolResult) String() string { return r.Text() }

// ResultMetadata is the metadata for renderers.
func (r *ToolResult) ResultMetadata() map[string]string {
	if r == nil {
		return nil
	}
	return r.Metadata
}

// ToolResultBuilder builds a ToolResult step by step.
type ToolResultBuilder struct{ r ToolResult }

// ResultBuilder is the seed document's name for ToolResultBuilder.
type ResultBuilder = ToolResultBuilder

// NewResultBuilder starts a result.
func NewResultBuilder() *ToolResultBuilder { return &ToolResultBuilder{} }

// Content sets the text.
func (b *ToolResultBuilder) Content(s string) *ToolResultBuilder { b.r.Content = s; return b }

// Error sets the text and marks the result as a failure, as xbot's does.
func (b *ToolResultBuilder) Error(content string) *ToolResultBuilder {
	b.r.Content, b.r.IsError = content, true
	return b
}

// IsError sets the error flag.
func (b *ToolResultBuilder) IsError(isError bool) *ToolResultBuilder {
	b.r.IsError = isError
	return b
}

// Metadata adds one metadata entry.
func (b *ToolResultBuilder) Metadata(key, value string) *ToolResultBuilder {
	if b.r.Metadata == nil {
		b.r.Metadata = map[string]string{}
	}
	b.r.Metadata[key] = value
	return b
}

// Build returns the result; the builder may go on to build another.
func (b *ToolResultBuilder) Build() *ToolResult {
	r := b.r
	if r.Metadata != nil {
		m := make(map[string]string, len(r.Metadata))
		for k, v := range r.Metadata {
			m[k] = v
		}
		r.Metadata = m
	}
	return &r
}

// FormatToolResult returns a result whose text is the title and then
// "key: value" lines, keys sorted, so output is deterministic; with no
// fields, the title alone. It returns a *ToolResult, as xbot's does (the
// seed document shows its text); the result prints as its text.
func FormatToolResult(title string, fields map[string]string) *ToolResult {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(title)
	for _, k := range keys {
		fmt.Fprintf(&b, "\n%s: %s", k, fields[k])
	}
	return NewToolResult(b.String())
}

// FormatListResult returns a result numbering items ("1. alpha\n2. beta");
// an empty list is "(no items)".
func FormatListResult(items []string) *ToolResult {
	if len(items) == 0 {
		return NewToolResult("(no items)")
	}
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%d. %s", i+1, it)
	}
	return NewToolResult(b.String())
}

// FormatErrorResult returns the error result "<operation> failed: <err>"
// ("unknown error" for a nil err).
func FormatErrorResult(operation string, err error) *ToolResult {
	msg := "unknown error"
	if err != nil {
		msg = err.Error()
	}
	return NewToolError(fmt.Sprintf("%s failed: %s", operation, msg))
}

// hostResult is a ToolResult as the host reads it: Hearth's hosts find
// the error flag through an IsError method, which ToolResult cannot have
// beside its field. Its JSON is ToolResult's.
type hostResult struct {
	Content  string            `json:"content"`
	Failed   bool              `json:"is_error,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
}

func toHost(r *ToolResult) *hostResult {
	if r == nil {
		return &hostResult{}
	}
	return &hostResult{Content: r.Content, Failed: r.IsError, Metadata: r.Metadata}
}

// Text is the content the model reads.
func (r *hostResult) Text() string { return r.Content }

// IsError reports a failed result.
func (r *hostResult) IsError() bool { return r.Failed }

// ResultMetadata is the metadata for renderers.
func (r *hostResult) ResultMetadata() map[string]string { return r.Metadata }
