// Package main is a test plugin in HomeAgent's source shape that uses the
// HomeAgent sdk names Hearth added for issue 12 (events, IOInjector,
// registrars, IsResponded, Run*Handlers, PluginMgr, Social, proxies).
// Its probe tool reports what each did.
package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"gitcode.com/JianFeeeee/homeagent-sdk/sdk"
)

type plugin struct {
	name string
	s    *sdk.PluginSDK

	mu    sync.Mutex
	stops int
}

func (p *plugin) Name() string { return p.name }

func (p *plugin) Start(s *sdk.PluginSDK) error {
	p.s = s
	var inj sdk.IOInjector = s // PluginSDK has HomeAgent's injection method set
	_ = inj
	var reg sdk.ToolRegistrar = s.RegisterTool
	var out sdk.OutputChannelRegistrar = s.RegisterOutputChannel
	var in sdk.InputChannelRegistrar = s.RegisterInputChannel
	var api sdk.APIRegistrar = s.RegisterPluginAPI
	_, _, _ = out, in, api
	s.RegisterStopHandler(func() { p.mu.Lock(); p.stops++; p.mu.Unlock() })
	s.RegisterStage(sdk.StageBeforeOutput, func(c *sdk.StageContext) error {
		before := c.IsResponded()
		c.SetResponse("")
		after := c.IsResponded()
		c.SetResponse(fmt.Sprintf("%s responded:[%v %v]", c.FinalText, before, after))
		return nil
	})
	return reg(p.name+"_probe", sdk.ToolDef{
		Name:        p.name + "_probe",
		Description: "Reports what the HomeAgent names did.",
		Parameters:  map[string]interface{}{"type": "object", "properties": map[string]interface{}{}},
	}, p.probe)
}

func (p *plugin) Stop() error { return nil }

func (p *plugin) probe(map[string]interface{}) (interface{}, error) {
	var r []string
	stop := p.s.Events().Subscribe(sdk.EventAgentOutput, func(*sdk.Event) {})
	stop()
	r = append(r, "events:subscribed")
	p.s.RunStopHandlers()
	p.s.RunStopHandlers()
	p.mu.Lock()
	r = append(r, fmt.Sprintf("stops:%d", p.stops))
	p.mu.Unlock()
	err := p.s.PluginMgr().ReloadOne("x")
	r = append(r, fmt.Sprintf("reload:%v", err != nil && strings.Contains(err.Error(), "not available")))
	_, err = p.s.Social().GetPerson("a")
	r = append(r, fmt.Sprintf("social:%v", err != nil))
	err = p.s.RegisterPluginAPI("x")
	r = append(r, fmt.Sprintf("api:%v", err != nil && !errors.Is(err, errors.ErrUnsupported)))
	p.s.DeclareProxy(sdk.ProxyDecl{Target: "127.0.0.1:1"})
	r = append(r, "proxy:"+sdk.NormalizeProxyHost(p.name)+":"+fmt.Sprint(sdk.ValidateProxyDecl(sdk.ProxyDecl{Target: "x"}) != ""))
	r = append(r, "event:"+string(sdk.EventToolCall))
	return strings.Join(r, " "), nil
}

// NewPlugin is HomeAgent's entry point.
func NewPlugin(name string, _ map[string]interface{}) (sdk.Plugin, error) {
	return &plugin{name: name}, nil
}
