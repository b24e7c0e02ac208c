package kernel

import (
	"errors"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/sdk"
)

func TestLoadPluginClaimsItsName(t *testing.T) {
	e := newEnv(t, Options{})
	load(t, e.k, "clock", clockPlugin)
	started := false
	second := func(n string, _ map[string]any) (sdk.Plugin, error) {
		started = true
		return pluginFunc{n, clockPlugin}, nil
	}
	for _, name := range []string{"clock", "Clock"} {
		t.Run(name, func(t *testing.T) {
			err := e.k.LoadPluginFrom(name, "the .so plugin in /x/clock", second, nil)
			if !errors.Is(err, names.ErrTaken) || !strings.Contains(err.Error(), `already used by the built-in plugin "clock"`) {
				t.Fatalf("second %s: %v", name, err)
			}
		})
	}
	if !names.IsReserved(usePlugin) {
		t.Fatalf("the name of %s is not reserved", useToolName)
	}
	for _, name := range []string{"core", "plugins", "hearth", "terminal", "ask"} {
		t.Run(name, func(t *testing.T) {
			if err := e.k.LoadPlugin(name, second, nil); !errors.Is(err, names.ErrReserved) {
				t.Fatalf("%s: %v", name, err)
			}
		})
	}
	if started {
		t.Fatal("a refused plugin's factory ran")
	}
	// Withdrawing by name cannot remove an in-process plugin's tools.
	e.k.Withdraw("clock")
	if _, ok := e.k.Tools().Lookup("clock__now"); !ok {
		t.Fatal("clock__now was withdrawn")
	}
	// A plugin that fails to start gives its name back.
	err := e.k.LoadPlugin("flaky", func(n string, _ map[string]any) (sdk.Plugin, error) {
		return pluginFunc{n, func(*sdk.PluginSDK) error { return errors.New("not today") }}, nil
	}, nil)
	if err == nil {
		t.Fatal("flaky started")
	}
	if _, held := e.k.Names().Owner("flaky"); held {
		t.Fatal("a failed plugin kept its name")
	}
}
