// Command ha-channels is the compat suite's HomeAgent channel plugins, our
// own, shaped like the channel patterns of HomeAgent's examples: qqlike (a
// chat app relaying people, answering through output_send and its output
// channel), calendarlike (a reminder source injecting without memory) and
// acplike (an agent bridge that waits for the answer). One binary serves
// all three; plugin.json's id picks which.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/pluginrpc"
)

func main() {
	pluginrpc.Serve(func(name string, _ map[string]any) (sdk.Plugin, error) {
		switch name {
		case "qqlike":
			return &qqLike{name: name, delivered: make(chan map[string]any, 16)}, nil
		case "calendarlike":
			return &calendarLike{name: name}, nil
		case "acplike":
			return &acpLike{name: name, delivered: make(chan map[string]any, 16)}, nil
		}
		return nil, fmt.Errorf("no test plugin %q", name)
	})
}

// qqLike relays a person's message as an interrupt (as qq does) and has
// its output channel deliver text, files, images and audio.
type qqLike struct {
	name      string
	sdk       *sdk.PluginSDK
	delivered chan map[string]any

	mu      sync.Mutex
	ownSeen int // before_toolcall calls seen with StageScopeOwnTools
	allSeen int // before_toolcall calls seen with StageScopeGlobal
}

func (p *qqLike) Name() string { return p.name }
func (p *qqLike) Stop() error  { return nil }

func (p *qqLike) Start(s *sdk.PluginSDK) error {
	p.sdk = s
	def := sdk.ChannelDef{ContextPolicy: sdk.ContextPolicyPrune, RecallPolicy: sdk.RecallPolicyAuto,
		Cleaner: func(s string) string { return s }}
	if !sdk.ValidContextPolicy(def.ContextPolicy) || !sdk.ValidRecallPolicy(def.RecallPolicy) ||
		sdk.ValidContextPolicy("sometimes") || !sdk.ValidRecallPolicy(sdk.RecallPolicyNone) || !sdk.ValidContextPolicy(sdk.ContextPolicyNone) {
		return fmt.Errorf("policy validators disagree with HomeAgent")
	}
	if err := s.RegisterInputChannel(p.name, def); err != nil {
		return err
	}
	caps := sdk.CapText | sdk.CapFile | sdk.CapImage | sdk.CapAudio
	if err := s.RegisterOutputChannel(p.name, caps, "meta: JSON {\"user_id\": ...}", def, func(args map[string]any) (interface{}, error) {
		p.delivered <- args
		return map[string]interface{}{"sent": args["type"]}, nil
	}); err != nil {
		return err
	}
	s.RegisterStage(sdk.StageBeforeToolcall, func(ctx *sdk.StageContext) error {
		p.mu.Lock()
		p.ownSeen += len(ctx.ToolCalls)
		p.mu.Unlock()
		return nil
	}, sdk.StageScopeOwnTools)
	s.RegisterStage(sdk.StageBeforeToolcall, func(ctx *sdk.StageContext) error {
		p.mu.Lock()
		p.allSeen += len(ctx.ToolCalls)
		p.mu.Unlock()
		return nil
	}, sdk.StageScopeGlobal)
	tools := map[string]sdk.ToolHandler{
		// webhook: a person's message arrives; it is relayed as qq does,
		// then the tool returns what the output channel delivered.
		"webhook": func(args map[string]interface{}) (interface{}, error) {
			text, _ := args["text"].(string)
			p.sdk.InjectInterruptTextOpts(p.name, p.name, text, sdk.InjectOptions{
				ContextPolicy: sdk.ContextPolicyNone, RecallPolicy: sdk.RecallPolicyAuto,
				CleanerName: p.name, Priority: sdk.PriorityL3,
			})
			return <-p.delivered, nil
		},
		"wait_delivery": func(map[string]interface{}) (interface{}, error) { return <-p.delivered, nil },
		"stages": func(map[string]interface{}) (interface{}, error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			return map[string]int{"own": p.ownSeen, "all": p.allSeen}, nil
		},
		"drop": func(map[string]interface{}) (interface{}, error) {
			return "dropped", p.sdk.UnregisterOutputChannel(p.name)
		},
	}
	for name, h := range tools {
		if err := s.RegisterTool(p.name+"_"+name, sdk.ToolDef{Name: p.name + "_" + name, Description: name}, h); err != nil {
			return err
		}
	}
	return nil
}

// calendarLike reminds through an input channel without memory, as the
// calendar example does, and records what its on_input stage saw.
type calendarLike struct {
	name string
	sdk  *sdk.PluginSDK

	mu   sync.Mutex
	seen []map[string]any
}

func (p *calendarLike) Name() string { return p.name }
func (p *calendarLike) Stop() error  { return nil }

func (p *calendarLike) Start(s *sdk.PluginSDK) error {
	p.sdk = s
	if err := s.RegisterInputChannel(p.name, sdk.ChannelDef{NoMemory: true}); err != nil {
		return err
	}
	s.RegisterStage(sdk.StageAfterOutput, func(ctx *sdk.StageContext) error {
		p.mu.Lock()
		p.seen = append(p.seen, map[string]any{"channel": ctx.Channel, "no_memory": ctx.NoMemory, "text": ctx.RawMessage})
		p.mu.Unlock()
		return nil
	})
	if err := s.RegisterTool("remind", sdk.ToolDef{Description: "remind now"}, func(args map[string]interface{}) (interface{}, error) {
		msg, _ := args["text"].(string)
		p.sdk.InjectInterruptTextOpts(p.name, p.name, msg, sdk.InjectOptions{NoMemory: true})
		p.sdk.InjectTextNoMemory(p.name, p.name, msg+" (again)")
		return "reminded", nil
	}); err != nil {
		return err
	}
	return s.RegisterTool("seen", sdk.ToolDef{Description: "what on_input saw"}, func(map[string]interface{}) (interface{}, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		b, _ := json.Marshal(p.seen)
		return string(b), nil
	})
}

// acpLike bridges another agent: it waits for the answer and sends it
// back itself (InjectInputSync), as acp and a2a do.
type acpLike struct {
	name      string
	sdk       *sdk.PluginSDK
	delivered chan map[string]any
}

func (p *acpLike) Name() string { return p.name }
func (p *acpLike) Stop() error  { return nil }

func (p *acpLike) Start(s *sdk.PluginSDK) error {
	p.sdk = s
	if err := s.RegisterInputChannel(p.name, sdk.ChannelDef{}); err != nil {
		return err
	}
	if err := s.RegisterOutputChannel(p.name, 1, "ACP bridge", sdk.ChannelDef{}, func(args map[string]interface{}) (interface{}, error) {
		p.delivered <- args
		return "ok", nil
	}); err != nil {
		return err
	}
	if err := s.RegisterToolContext("prompt", sdk.ToolDef{Description: "ask the agent and wait"},
		func(_ context.Context, _ *sdk.ToolContext, args map[string]any) (any, error) {
			text, _ := args["text"].(string)
			reply := p.sdk.InjectInputSync(p.name, p.name, text)
			opts := p.sdk.InjectInputSyncOpts(p.name, p.name, text+" (opts)", sdk.InjectOptions{RecallPolicy: sdk.RecallPolicyNone})
			media := p.sdk.InjectInputMediaSync(p.name, p.name, "look", []sdk.ContentBlock{
				{Type: "image_url", ImageURL: &sdk.ImageURL{URL: "https://example.invalid/cat.png"}},
				{Type: "text", Text: "and this"},
			})
			p.sdk.SetToolBlocks([]sdk.ContentBlock{{Type: "audio_url", AudioURL: &sdk.AudioURL{URL: "data:audio/wav;base64,AA"}}})
			select {
			case got := <-p.delivered:
				return nil, fmt.Errorf("a waited-for answer was also delivered: %v", got)
			default:
			}
			return map[string]string{"reply": reply, "opts": opts, "media": media}, nil
		}); err != nil {
		return err
	}
	return nil
}
