package host_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
)

// fakeHost records injections and provides no services.
type fakeHost struct{ injected []sdk.Injection }

func (h *fakeHost) RegisterTool(string, sdk.ToolDef, sdk.RawToolHandler) error { return nil }
func (h *fakeHost) RegisterStage(string, sdk.Stage, bool, sdk.StageHandler)    {}
func (h *fakeHost) RegisterDecisionHook(string, sdk.DecisionHook)              {}
func (h *fakeHost) Services(string) host.Services                              { return host.Services{} }
func (h *fakeHost) InjectSync(context.Context, string, sdk.Injection) (string, error) {
	return "", nil
}
func (h *fakeHost) Inject(_ string, in sdk.Injection) error {
	h.injected = append(h.injected, in)
	return nil
}

var _ host.Host = (*fakeHost)(nil)

// injector records what the Inject methods route to it.
type injector struct{ got []string }

func (i *injector) InjectInterruptText(_, _, text string) { i.got = append(i.got, "interrupt "+text) }
func (i *injector) InjectText(_, _, text string)          { i.got = append(i.got, "text "+text) }
func (i *injector) InjectTextNoMemory(_, _, text string)  { i.got = append(i.got, "nomemory "+text) }

func TestNewFillsUnavailableServices(t *testing.T) {
	s := host.New("p", &fakeHost{})
	if s.PluginName() != "p" || s.Logger() == nil {
		t.Fatalf("PluginName %q, Logger %v", s.PluginName(), s.Logger())
	}
	if _, err := s.Settings().Get("x"); !errors.Is(err, sdk.ErrUnavailable) {
		t.Errorf("Settings().Get = %v", err)
	}
	if _, err := s.KV().Get(context.Background(), "x", new(int)); !errors.Is(err, sdk.ErrUnavailable) {
		t.Errorf("KV().Get = %v", err)
	}
	if s.DataDir() != "" {
		t.Errorf("DataDir = %q", s.DataDir())
	}
}

func TestSetIOInjector(t *testing.T) {
	h := &fakeHost{}
	s := host.New("p", h)
	inj := &injector{}
	host.SetIOInjector(s, inj)
	s.InjectText("p", "c", "a")
	s.InjectInterruptText("p", "c", "b")
	s.InjectTextNoMemory("p", "c", "c")
	s.InjectTextOpts("p", "c", "e", sdk.InjectOptions{})
	s.InjectTextOpts("p", "c", "f", sdk.InjectOptions{NoMemory: true})
	s.InjectInterruptTextOpts("p", "c", "g", sdk.InjectOptions{})
	if want := []string{"text a", "interrupt b", "nomemory c", "text e", "nomemory f", "interrupt g"}; !slices.Equal(inj.got, want) {
		t.Errorf("injector got %q, want %q", inj.got, want)
	}
	if len(h.injected) != 0 {
		t.Errorf("host got %v while an injector was set", h.injected)
	}
	host.SetIOInjector(s, nil)
	s.InjectText("p", "c", "d")
	if len(h.injected) != 1 || h.injected[0].Text != "d" || h.injected[0].Source != "p" {
		t.Errorf("host got %+v, want one input d from p", h.injected)
	}
}

func TestRunOnRemoveHandlers(t *testing.T) {
	s := host.New("p", &fakeHost{})
	var order []int
	s.RegisterOnRemoveHandler(func() { order = append(order, 1) })
	s.RegisterOnRemoveHandler(func() { panic("contained") })
	s.RegisterOnRemoveHandler(func() { order = append(order, 3) })
	host.RunOnRemoveHandlers(s)
	host.RunOnRemoveHandlers(s) // second run: nothing left
	if want := []int{3, 1}; !slices.Equal(order, want) {
		t.Fatalf("remove handlers ran %v, want %v", order, want)
	}
}
