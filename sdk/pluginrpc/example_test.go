package pluginrpc_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// Echo is a plugin with one tool.
type Echo struct{ name string }

func (e *Echo) Name() string { return e.name }
func (e *Echo) Stop() error  { return nil }

// EchoInput is the input of echo__say.
type EchoInput struct {
	Text string `json:"text"`
}

func (e *Echo) Start(s *sdk.PluginSDK) error {
	return sdk.AddTool(s, sdk.ToolDef{Name: "say", Description: "Say text back."},
		func(_ context.Context, _ *sdk.ToolContext, in EchoInput) (string, error) {
			return "echo: " + in.Text, nil
		})
}

// NewEcho is Echo's factory.
func NewEcho(name string, _ map[string]any) (sdk.Plugin, error) { return &Echo{name: name}, nil }

// A Go plugin's main: Hearth starts the program and speaks the protocol
// on its stdin and stdout. (Serve exits the process, so this example is
// compiled, not run.)
func ExampleServe() {
	pluginrpc.Serve(NewEcho)
}

// ServeConn serves a plugin over any pipe. Here the host's side is a
// wire.Conn in the same process: it accepts the plugin's tool, starts the
// plugin with the handshake and calls the tool, as Hearth does.
func ExampleServeConn() {
	hostIn, pluginOut := io.Pipe()
	pluginIn, hostOut := io.Pipe()
	quiet := slog.New(slog.DiscardHandler)

	host := wire.NewConn(hostIn, hostOut, quiet)
	host.Handle(wire.MethodToolsRegister, func(_ context.Context, raw json.RawMessage) (any, error) {
		var def wire.ToolDef
		if err := json.Unmarshal(raw, &def); err != nil {
			return nil, err
		}
		fmt.Println("registered:", def.Name)
		return struct{}{}, nil
	})
	hostDone := make(chan error, 1)
	go func() { hostDone <- host.Run() }()

	served := make(chan error, 1)
	go func() { served <- pluginrpc.ServeConn(context.Background(), pluginIn, pluginOut, NewEcho, quiet) }()

	ctx := context.Background()
	var init wire.InitializeResult
	if err := host.Call(ctx, wire.MethodInitialize, wire.InitializeParams{
		ProtocolVersions: []int{wire.ProtocolVersion}, Plugin: "echo",
	}, &init); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("started:", init.Name)

	var res wire.ToolCallResult
	if err := host.Call(ctx, wire.MethodToolCall, wire.ToolCallParams{
		Tool: "say", Args: json.RawMessage(`{"text":"你好"}`),
	}, &res); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("answer:", *res.Text)

	// Closing the plugin's input ends ServeConn, which stops the plugin;
	// closing its output then ends the host's Run.
	hostOut.Close()
	fmt.Println("served:", <-served)
	pluginOut.Close()
	<-hostDone
	// Output:
	// registered: say
	// started: echo
	// answer: echo: 你好
	// served: <nil>
}
