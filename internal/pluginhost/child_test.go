//go:build unix

package pluginhost

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hearth-agent/hearth/examples/homeagent/weather"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// runChild is the plugin side of the tests: the test binary re-executed
// with HEARTH_TEST_CHILD naming a behaviour.
func runChild(mode string) {
	protocolOut = os.Stdout // Serve sends os.Stdout to stderr
	switch mode {
	case "ok":
		pluginrpc.Serve(newTestPlugin)
	case "crash-start":
		os.Exit(2)
	case "exit-handshake":
		bufio.NewReader(os.Stdin).ReadString('\n')
		os.Exit(4)
	case "garbage":
		fmt.Println("this is not JSON")
		os.Stdout.WriteString(`{"valid": "json but not json-rpc"}` + "\n")
		os.Stdout.WriteString(strings.Repeat("x", 10<<20) + "\n")
		pluginrpc.Serve(newTestPlugin)
	case "wrong-version":
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		_ = line
		os.Stdout.WriteString(`{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"the plugin speaks protocol version 2; the host offered [1]","data":{"supported":[2]}}}` + "\n")
		bufio.NewReader(os.Stdin).ReadString('\n') // until the host closes stdin
		os.Exit(0)
	case "weather":
		// The HomeAgent example plugin, the same source that runs compiled in.
		pluginrpc.Serve(weather.NewPlugin)
	case "silent":
		select {} // never answers the handshake
	case "settings":
		pluginrpc.Serve(newSettingsPlugin)
	case "memory":
		pluginrpc.Serve(newMemoryPlugin)
	case "scopedmem":
		pluginrpc.Serve(newScopedPlugin)
	case "bank":
		pluginrpc.Serve(newBankPlugin)
	case "guard":
		pluginrpc.Serve(newGuardPlugin)
	case "rawguard":
		serveRawGuard()
	case "stageguard":
		pluginrpc.Serve(newStageGuardPlugin)
	case "undeny", "respond":
		pluginrpc.Serve(newMeddler(mode))
	case "injector":
		pluginrpc.Serve(newInjector)
	case "flooder":
		pluginrpc.Serve(newFlooder)
	case "rawprefs":
		serveRawPrefs()
	case "inputguard", "inputplain":
		pluginrpc.Serve(newInputFilter(mode))
	case "ownerguard":
		pluginrpc.Serve(newOwnerGuard)
	case "channel":
		pluginrpc.Serve(newChannelPlugin)
	case "holdtools":
		pluginrpc.Serve(newHoldTools)
	case "dupetools":
		serveDupeTools()
	case "redactor":
		pluginrpc.Serve(newRedactor)
	}
	os.Exit(9)
}

// protocolOut is the child's protocol output, for a test plugin to write
// raw messages.
var protocolOut *os.File

type testPlugin struct{ name string }

func newTestPlugin(name string, _ map[string]any) (sdk.Plugin, error) {
	return &testPlugin{name: name}, nil
}

func (p *testPlugin) Name() string { return p.name }
func (p *testPlugin) Stop() error  { return nil }

func (p *testPlugin) Start(s *sdk.PluginSDK) error {
	reg := func(name string, def sdk.ToolDef, h sdk.ContextToolHandler) {
		if err := s.RegisterToolContext(name, def, h); err != nil {
			panic(err)
		}
	}
	reg("echo", sdk.ToolDef{Effect: sdk.EffectRead, Title: "回声"}, func(_ context.Context, tc *sdk.ToolContext, args map[string]any) (any, error) {
		return map[string]any{"args": args, "actor": tc.Actor, "tool": tc.Tool}, nil
	})
	reg("progress", sdk.ToolDef{Effect: sdk.EffectRead}, func(_ context.Context, tc *sdk.ToolContext, _ map[string]any) (any, error) {
		if tc.Progress == nil {
			return "no progress", nil
		}
		for i := 1; i <= 3; i++ {
			tc.Progress(float64(i), 3, fmt.Sprintf("step %d", i))
		}
		return "reported", nil
	})
	reg("text", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		return "plain text", nil
	})
	reg("iserr", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		return map[string]any{"isError": true, "content": "城市不存在"}, nil
	})
	reg("fail", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		return nil, errors.New("broken on purpose")
	})
	reg("sleep", sdk.ToolDef{Timeout: 300 * time.Millisecond}, func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any) (any, error) {
		select {
		case <-ctx.Done():
			// Leave a mark that the cancellation arrived.
			os.WriteFile(filepath.Join(s.DataDir(), "cancelled"), nil, 0o600)
			return nil, ctx.Err()
		case <-time.After(time.Minute):
			return "woke", nil
		}
	})
	reg("huge", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		return strings.Repeat("z", wire.MaxMessage), nil // over the limit with the envelope
	})
	reg("hugenoid", sdk.ToolDef{}, func(ctx context.Context, _ *sdk.ToolContext, _ map[string]any) (any, error) {
		// An answer too large whose id comes last: the host cannot tell
		// whose it is without reading all of it.
		protocolOut.WriteString(`{"jsonrpc":"2.0","result":"` + strings.Repeat("z", wire.MaxMessage) + `","id":2}` + "\n")
		<-ctx.Done()
		return nil, ctx.Err()
	})
	reg("crash", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		os.Exit(3)
		return nil, nil
	})
	reg("freeze", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		syscall.Kill(os.Getpid(), syscall.SIGSTOP) // the whole process stops answering
		return nil, nil
	})
	reg("grandchild", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		cmd := exec.Command("sleep", "300")
		cmd.Stdout = os.NewFile(1, "protocol-stdout") // holds the pipe open
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		os.WriteFile(filepath.Join(s.DataDir(), "grandchild.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
		os.Exit(5)
		return nil, nil
	})
	reg("env", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		return os.Environ(), nil
	})
	reg("switch_source", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		return nil, s.LLM().SetSource("other")
	})
	reg("inject", sdk.ToolDef{}, func(context.Context, *sdk.ToolContext, map[string]any) (any, error) {
		s.InjectText("", "childchan", "hello from the child")
		return "injected", nil
	})
	s.RegisterStage(sdk.StagePreAction, func(ctx *sdk.StageContext) error {
		ctx.ContextMsgs = append(ctx.ContextMsgs, map[string]any{"role": "system", "content": "from the child plugin"})
		return nil
	})
	s.RegisterStage(sdk.StageOnInput, func(ctx *sdk.StageContext) error {
		ctx.FinalText = "forged by the child" // not allowed at on_input
		ctx.RawMessage = ctx.RawMessage + " (seen by child)"
		return nil
	})
	s.RegisterStopHandler(func() {
		os.WriteFile(filepath.Join(s.DataDir(), "stopped"), nil, 0o600)
	})
	return nil
}
