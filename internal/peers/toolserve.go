package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveEnv, when set in this program's environment, makes it a tool
// server instead of the harness: "hearth:<n>" serves a Hearth child
// plugin of n tools over Hearth's plugin protocol, "mcp:<n>" an MCP
// stdio server of the same n tools (for picoclaw), "xbot:<n>" an xbot
// stdio plugin of them. All describe each tool alike, so every host sends
// the model the same extra tools.
const serveEnv = "HEARTH_PEERS_SERVE"

func init() {
	v := os.Getenv(serveEnv)
	if v == "" {
		return
	}
	kind, num, _ := strings.Cut(v, ":")
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		fmt.Fprintf(os.Stderr, "%s=%q: want hearth:<n>, mcp:<n> or xbot:<n>\n", serveEnv, v)
		os.Exit(2)
	}
	switch kind {
	case "hearth":
		pluginrpc.Serve(func(name string, _ map[string]any) (sdk.Plugin, error) { return &benchTools{name: name, n: n}, nil })
	case "mcp":
		serveMCP(n)
		os.Exit(0)
	case "xbot":
		serveXbot(n)
		os.Exit(0)
	default:
		fmt.Fprintf(os.Stderr, "%s=%q: want hearth:<n>, mcp:<n> or xbot:<n>\n", serveEnv, v)
		os.Exit(2)
	}
}

// toolDescription and toolSchema describe tool i as fully as a real
// service plugin (a task list, a blog) describes its tools.
func toolDescription(i int) string {
	return fmt.Sprintf("Tool %d: lists, creates or updates the items of the service this plugin manages, "+
		"filtered by project, label, date and owner; returns a JSON list with ids, titles and states.", i)
}

func toolSchema() map[string]any {
	return map[string]any{"type": "object", "properties": map[string]any{
		"project": map[string]any{"type": "string", "description": "the project's id or name"},
		"label":   map[string]any{"type": "string", "description": "a label to filter by"},
		"limit":   map[string]any{"type": "integer", "description": "how many items at most"},
	}}
}

// toolOutput is what tool i returns; the harness checks that it reached
// the provider.
func toolOutput(i int) string { return fmt.Sprintf("tool %d ran", i) }

// toolDelay is how long every tool takes, in every host alike; the
// harness subtracts it from the host's time. xbot registers its wait for
// a plugin's answer only after writing the request, so an answer that
// comes sooner is dropped and the call times out after 30 s (seen here
// in about one one-shot turn in five with an instant answer).
const toolDelay = 5 * time.Millisecond

// benchTools is the Hearth plugin of n tools, tool0 … tool<n-1>.
type benchTools struct {
	name string
	n    int
}

var _ sdk.Plugin = (*benchTools)(nil)

func (p *benchTools) Name() string { return p.name }
func (p *benchTools) Stop() error  { return nil }

func (p *benchTools) Start(s *sdk.PluginSDK) error {
	for i := range p.n {
		def := sdk.ToolDef{Description: toolDescription(i), Parameters: toolSchema(), Effect: sdk.EffectRead}
		out := toolOutput(i)
		if err := s.RegisterTool(fmt.Sprintf("tool%d", i), def, func(map[string]any) (any, error) {
			time.Sleep(toolDelay)
			return out, nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// serveMCP serves the same n tools as an MCP stdio server.
func serveMCP(n int) {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1.0.0"}, nil)
	schema, _ := json.Marshal(toolSchema())
	for i := range n {
		out := toolOutput(i)
		s.AddTool(&mcp.Tool{Name: fmt.Sprintf("tool%d", i), Description: toolDescription(i), InputSchema: json.RawMessage(schema)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				time.Sleep(toolDelay)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil
			})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcp:", err)
		os.Exit(1)
	}
}

// serveXbot serves the same n tools as an xbot stdio plugin: one JSON
// request a line on stdin, one response a line on stdout.
func serveXbot(n int) {
	schema := toolSchema()
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 64<<10), 1<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			Method string `json:"method"`
			Params struct {
				ToolName string `json:"toolName"`
			} `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			out.Encode(map[string]string{"error": "bad request: " + err.Error()})
			continue
		}
		switch req.Method {
		case "activate":
			tools := make([]map[string]any, n)
			for i := range n {
				tools[i] = map[string]any{"name": fmt.Sprintf("tool%d", i), "description": toolDescription(i), "inputSchema": schema}
			}
			out.Encode(map[string]any{"tools": tools})
		case "execute_tool":
			var i int
			if _, err := fmt.Sscanf(req.Params.ToolName, "tool%d", &i); err != nil || i < 0 || i >= n {
				out.Encode(map[string]string{"error": "no tool " + req.Params.ToolName})
				continue
			}
			time.Sleep(toolDelay)
			out.Encode(map[string]string{"result": toolOutput(i)})
		case "deactivate":
			out.Encode(map[string]string{"result": "ok"})
			return
		default:
			out.Encode(map[string]string{"result": ""})
		}
	}
}
