package kernel

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/hearth-agent/hearth/internal/policy"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/wire"
)

// FuzzChannelRegistration feeds channels.register params, as a child
// plugin sends them, to the kernel, then an output_send__<name> call's
// arguments, as a model writes them: nothing panics, a registered name is
// a valid one and never Hearth's, and a type the channel did not declare
// never reaches its handler.
func FuzzChannelRegistration(f *testing.F) {
	f.Add([]byte(`{"name":"qq","input":true,"output":true,"caps":3,"description":"d","def":{"no_memory":true}}`), []byte(`{"payload":"x","type":"file"}`))
	f.Add([]byte(`{"name":"terminal","output":true,"caps":1}`), []byte(`{"payload":"x"}`))
	f.Add([]byte(`{"name":"a b","output":true}`), []byte(`{"type":"image"}`))
	f.Add([]byte(`{"name":"im","output":true,"caps":-1,"def":{"context_policy":"prune","recall_policy":"x"}}`), []byte(`[]`))
	f.Add([]byte(`{"name":"IM","output":true,"caps":16}`), []byte(`{"payload":1}`))
	eng, err := policy.NewEngine(context.Background(), policy.DiscardStore{}, slog.New(slog.DiscardHandler))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, params, args []byte) {
		k := New(nil, nil, &Options{Policy: eng, Logger: slog.New(slog.DiscardHandler)})
		defer k.Close()
		var reg sdk.ChannelRegistration
		if wire.DecodeParams(params, &reg) != nil {
			return
		}
		var got []sdk.OutputMessage
		reg.Send = func(_ context.Context, m sdk.OutputMessage) (any, error) { got = append(got, m); return "ok", nil }
		if err := k.RegisterPluginChannel("fuzz", reg); err != nil {
			return
		}
		if sdk.CheckChannelName(reg.Name) != nil || k.reservedChannel(reg.Name) {
			t.Fatalf("registered %q", reg.Name)
		}
		if !reg.Output {
			return
		}
		tool, ok := k.Tools().Lookup(sdk.OutputSendPrefix + reg.Name)
		if !ok {
			t.Fatalf("no tool for %q", reg.Name)
		}
		res := tool.Call(context.Background(), &sdk.ToolContext{Actor: sdk.ActorAgent}, json.RawMessage(args))
		for _, m := range got {
			caps := reg.Caps
			if caps == 0 {
				caps = sdk.CapText
			}
			if bit := sdk.CapForType(m.Type); bit == 0 || caps&bit == 0 {
				t.Fatalf("type %q reached a channel with caps %d (%s)", m.Type, reg.Caps, res.Content)
			}
		}
		if len(got) == 0 && !res.IsError {
			t.Fatalf("no delivery and no error: %s", res.Content)
		}
	})
}
