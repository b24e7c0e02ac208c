package sdk_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

// haSDK returns a PluginSDK on the test harness (a host without events).
func haSDK(t *testing.T) *sdk.PluginSDK {
	t.Helper()
	return sdktest.Start(t, "haplugin", func(string, map[string]any) (sdk.Plugin, error) {
		return nop{start: func(*sdk.PluginSDK) error { return nil }}, nil
	}, nil).SDK()
}

// HomeAgent's StageContext.IsResponded reports a set Response.
func TestIsResponded(t *testing.T) {
	var c sdk.StageContext
	if c.IsResponded() {
		t.Fatal("responded without a Response")
	}
	c.SetResponse("done")
	if !c.IsResponded() {
		t.Fatal("not responded after SetResponse")
	}
}

// RunStopHandlers and RunOnRemoveHandlers run the handlers last first,
// once.
func TestRunHandlersOnce(t *testing.T) {
	s := haSDK(t)
	var ran []string
	s.RegisterStopHandler(func() { ran = append(ran, "stop1") })
	s.RegisterStopHandler(func() { ran = append(ran, "stop2") })
	s.RegisterOnRemoveHandler(func() { ran = append(ran, "remove") })
	s.RunStopHandlers()
	s.RunStopHandlers()
	s.RunOnRemoveHandlers()
	s.RunOnRemoveHandlers()
	if want := []string{"stop2", "stop1", "remove"}; !slices.Equal(ran, want) {
		t.Fatalf("ran %v, want %v", ran, want)
	}
}

// The names Hearth has no mechanism for compile and refuse at run time
// with ErrUnavailable.
func TestUnavailableHomeAgentNames(t *testing.T) {
	s := haSDK(t)
	if err := s.RegisterPluginAPI("x"); !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("RegisterPluginAPI: %v", err)
	}
	if err := s.PluginMgr().ReloadOne("x"); !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("ReloadOne: %v", err)
	}
	if got := s.PluginMgr().ListLoadedPlugins(); len(got) != 1 || got[0] != s.PluginName() {
		t.Fatalf("ListLoadedPlugins = %v", got)
	}
	if _, err := s.Social().GetPerson("a"); !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("GetPerson: %v", err)
	}
	if _, ok := s.Social().GetTrait("a", "b"); ok {
		t.Fatal("GetTrait found something")
	}
	s.DeclareProxy(sdk.ProxyDecl{Target: "127.0.0.1:1"}) // logs, no panic
	// A host without events: Subscribe is a no-op, never nil.
	stop := s.Events().Subscribe(sdk.EventAgentOutput, func(*sdk.Event) { t.Error("event delivered") })
	stop()
	var _ sdk.IOInjector = s
	var _ sdk.ToolRegistrar = s.RegisterTool
	var _ sdk.OutputChannelRegistrar = s.RegisterOutputChannel
}

func TestValidateProxyDecl(t *testing.T) {
	for _, c := range []struct {
		d  sdk.ProxyDecl
		ok bool
	}{
		{sdk.ProxyDecl{Target: "127.0.0.1:12100"}, true},
		{sdk.ProxyDecl{Target: "http://localhost"}, true},
		{sdk.ProxyDecl{Target: "https://h:443/base", Host: "my-app", Auth: "none"}, true},
		{sdk.ProxyDecl{Target: ""}, false},
		{sdk.ProxyDecl{Target: "localhost"}, false},
		{sdk.ProxyDecl{Target: "h:abc"}, false},
		{sdk.ProxyDecl{Target: "h:70000"}, false},
		{sdk.ProxyDecl{Target: "ws://h:1"}, false},
		{sdk.ProxyDecl{Target: "h:1", Auth: "basic"}, false},
		{sdk.ProxyDecl{Target: "h:1", Host: "-bad"}, false},
		{sdk.ProxyDecl{Target: "http://:80"}, false},
	} {
		if got := sdk.ValidateProxyDecl(c.d); (got == "") != c.ok {
			t.Errorf("%+v: %q", c.d, got)
		}
	}
	for in, want := range map[string]string{"Huawei_SmartHome": "huawei-smarthome", "__": "plugin", "a.b": "ab"} {
		if got := sdk.NormalizeProxyHost(in); got != want {
			t.Errorf("NormalizeProxyHost(%q) = %q, want %q", in, got, want)
		}
	}
	if sdk.EffectiveProxyAuth("") != sdk.ProxyAuthHomeAgent || sdk.ValidProxyAuth("x") {
		t.Fatal("proxy auth")
	}
}

// FuzzValidateProxyDecl: a plugin's declaration never panics the
// validator, and a derived host label is always valid.
func FuzzValidateProxyDecl(f *testing.F) {
	f.Add("127.0.0.1:1", "ui", "none", "p_q")
	f.Add("http://[::1]:80/x", "", "", "")
	f.Fuzz(func(t *testing.T, target, host, auth, plugin string) {
		sdk.ValidateProxyDecl(sdk.ProxyDecl{Target: target, Host: host, Auth: auth})
		if h := sdk.NormalizeProxyHost(plugin); !sdk.ValidProxyHostLabel(h) || strings.ContainsAny(h, "_ ") {
			t.Fatalf("NormalizeProxyHost(%q) = %q, not a label", plugin, h)
		}
	})
}
