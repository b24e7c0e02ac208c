//go:build unix

package pluginhost

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runMCPChild is the MCP server side of the tests: the test binary
// re-executed with HEARTH_TEST_MCP naming a behaviour; it serves over
// stdio with the official SDK, as third-party servers do.
func runMCPChild(mode string) {
	if mode == "" {
		return
	}
	in, out := io.ReadCloser(freezer{os.Stdin}), io.WriteCloser(freezer{os.Stdout})
	switch mode {
	case "basic":
	case "early":
		// Notifications before the initialize response: a log message
		// and tools/list_changed, written ahead of the SDK's first line.
		out = &earlyWriter{w: out, early: []byte(
			`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"early bird"}}` + "\n" +
				`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n")}
	case "stubborn":
		// Ignores the end of its input and SIGTERM: only SIGKILL ends it.
		signal.Ignore(syscall.SIGTERM)
		_ = newTestMCPServer().Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: out})
		os.WriteFile(os.Getenv("HEARTH_TEST_MCP_EOF"), []byte("eof"), 0o644)
		time.Sleep(time.Hour) // not select{}: the runtime would end a deadlock
	default:
		os.Exit(9)
	}
	_ = newTestMCPServer().Run(context.Background(), &mcp.IOTransport{Reader: in, Writer: out})
	os.Exit(0)
}

// frozen, once set by the tool freeze, makes the child's stdio block.
var frozen atomic.Bool

// freezer is stdin or stdout, until frozen.
type freezer struct{ f *os.File }

func (z freezer) Read(b []byte) (int, error) {
	for frozen.Load() {
		time.Sleep(time.Hour)
	}
	return z.f.Read(b)
}

func (z freezer) Write(b []byte) (int, error) {
	for frozen.Load() {
		time.Sleep(time.Hour)
	}
	return z.f.Write(b)
}

func (z freezer) Close() error { return z.f.Close() }

// earlyWriter writes early before the first write.
type earlyWriter struct {
	w     io.WriteCloser
	once  sync.Once
	early []byte
}

func (e *earlyWriter) Write(b []byte) (int, error) {
	e.once.Do(func() { _, _ = e.w.Write(e.early) })
	return e.w.Write(b)
}

func (e *earlyWriter) Close() error { return e.w.Close() }

type echoIn struct {
	Text string `json:"text"`
}

type sumIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

type sumOut struct {
	Sum int `json:"sum"`
}

// pngBytes is a 1x1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00\x00\x00IEND\xaeB`\x82")

// newTestMCPServer is the server the tests talk to, over stdio in a
// child or over HTTP in process.
func newTestMCPServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "1.0.0"}, nil)
	yes := true
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes.\x07"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Data: "echoing " + in.Text})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "get-sum", Title: "Sum"}, func(ctx context.Context, req *mcp.CallToolRequest, in sumIn) (*mcp.CallToolResult, sumOut, error) {
		return nil, sumOut{Sum: in.A + in.B}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "picture", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &yes}}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a dot"},
			&mcp.ImageContent{MIMEType: "image/png", Data: pngBytes},
			&mcp.ResourceLink{URI: "file:///dot.png", Name: "dot"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "mem://note", Text: "embedded note"}},
		}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "fail", Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes}}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such file"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 2, Message: "half way"})
		if os.Getenv("HEARTH_TEST_MCP_HANG") == "" {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil, nil
		}
		<-ctx.Done()
		// The host cancelled: say so where the test can see it.
		_ = os.WriteFile(os.Getenv("HEARTH_TEST_MCP_HANG"), []byte("cancelled"), 0o644)
		return nil, nil, ctx.Err()
	})
	mcp.AddTool(s, &mcp.Tool{Name: "grow"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		mcp.AddTool(s, &mcp.Tool{Name: "grown"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "new"}}}, nil, nil
		})
		s.RemoveTools("fail")
		s.AddPrompt(&mcp.Prompt{Name: "farewell"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Bye."}}}}, nil
		})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grew"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "die"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		os.Exit(3)
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "freeze"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		frozen.Store(true) // hung: it reads and writes nothing more, pings included
		return nil, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "env"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
		var b bytes.Buffer
		for _, e := range os.Environ() {
			b.WriteString(e + "\n")
		}
		wd, _ := os.Getwd()
		b.WriteString("PWD=" + wd + "\n")
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil, nil
	})
	// A name outside [a-zA-Z0-9_-], and a draft-07 schema.
	s.AddTool(&mcp.Tool{Name: "files.read/v2", InputSchema: map[string]any{
		"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"},
	}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read " + string(req.Params.Arguments)}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "mem://readme", Name: "readme", MIMEType: "text/plain"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "read me"}}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "mem://notes/{id}", Name: "note"}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "note " + req.Params.URI}}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "greet", Description: "Greets.", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: "Say hello to " + req.Params.Arguments["who"] + "."}},
			}}, nil
		})
	return s
}
