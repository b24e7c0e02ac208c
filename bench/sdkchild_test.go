package bench

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hearth-agent/hearth/sdk/wire"
)

func setupSDKChild(b *testing.B) (caller, func()) {
	cmd := child("hearth")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := wire.NewConn(stdout, stdin, nil)
	c.Handle(wire.MethodToolsRegister, func(context.Context, json.RawMessage) (any, error) { return struct{}{}, nil })
	go c.Run()
	if err := c.Call(context.Background(), wire.MethodInitialize, wire.InitializeParams{
		ProtocolVersions: []int{1}, Plugin: "echo"}, nil); err != nil {
		b.Fatal(err)
	}
	params := wire.ToolCallParams{Tool: "echo", Args: json.RawMessage(payload),
		Context: wire.CallContext{PluginID: "echo", Tool: "echo", Actor: "agent"}}
	return func(ctx context.Context) error {
		var res wire.ToolCallResult
		return c.Call(ctx, wire.MethodToolCall, params, &res)
	}, func() { stdin.Close(); cmd.Wait() }
}

// BenchmarkEchoSDKChild calls the child plugin's tool.call over a bare
// connection: the child SDK's cost without the host's kernel and
// pluginhost layers.
func BenchmarkEchoSDKChild(b *testing.B) { run(b, setupSDKChild) }
