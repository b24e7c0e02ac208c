// Command sochannel is a HomeAgent-style .so plugin of the tests: it owns
// the channel "sochan" both ways and returns, from its tool
// sochan__relay, what its output handler got for the relayed message.
package main

import (
	"github.com/hearth-agent/hearth/sdk"
)

type plugin struct {
	name      string
	s         *sdk.PluginSDK
	delivered chan map[string]interface{}
}

// NewPlugin is the factory Hearth looks up in the .so.
func NewPlugin(name string, _ map[string]interface{}) (sdk.Plugin, error) {
	return &plugin{name: name, delivered: make(chan map[string]interface{}, 4)}, nil
}

func (p *plugin) Name() string { return p.name }
func (p *plugin) Stop() error  { return nil }

func (p *plugin) Start(s *sdk.PluginSDK) error {
	p.s = s
	_ = s.RegisterInputChannel(p.name, sdk.ChannelDef{})
	if err := s.RegisterOutputChannel(p.name, sdk.CapText, "so channel", sdk.ChannelDef{}, func(args map[string]interface{}) (interface{}, error) {
		p.delivered <- args
		return "ok", nil
	}); err != nil {
		return err
	}
	return s.RegisterTool("relay", sdk.ToolDef{Description: "relay a message and return what was delivered"},
		func(args map[string]interface{}) (interface{}, error) {
			text, _ := args["text"].(string)
			p.s.InjectInterruptText(p.name, p.name, text)
			return <-p.delivered, nil
		})
}

func main() {}
