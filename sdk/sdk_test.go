package sdk_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/host"
	"github.com/hearth-agent/hearth/sdk/sdktest"
)

func TestRegisterFactoryPanics(t *testing.T) {
	f := func(string, map[string]any) (sdk.Plugin, error) { return nil, nil }
	once := fmt.Sprintf("sdk-test-%d", time.Now().UnixNano()) // unique per run (-count)
	sdk.RegisterFactory(once, f)
	for name, call := range map[string]func(){
		"duplicate": func() { sdk.RegisterFactory(once, f) },
		"empty":     func() { sdk.RegisterFactory("", f) },
		"nil":       func() { sdk.RegisterFactory("sdk-test-nil", nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			call()
		}()
	}
	if _, ok := sdk.Factory(once); !ok {
		t.Fatal("factory not found")
	}
	found := false
	for _, n := range sdk.Factories() {
		found = found || n == once
	}
	if !found {
		t.Fatal("Factories misses it")
	}
}

type nop struct{ start func(*sdk.PluginSDK) error }

func (n nop) Name() string                 { return "nop" }
func (n nop) Start(s *sdk.PluginSDK) error { return n.start(s) }
func (n nop) Stop() error                  { return nil }

func TestUnavailableServicesAndLifecycle(t *testing.T) {
	var order []int
	h := sdktest.Start(t, "nop", func(string, map[string]any) (sdk.Plugin, error) {
		return nop{func(s *sdk.PluginSDK) error {
			if _, _, err := s.Memory().Recall([]string{"x"}, 1); !errors.Is(err, sdk.ErrUnavailable) {
				t.Errorf("Memory().Recall = %v", err)
			}
			if err := s.TextMemory().Append(sdk.TextEvent{}); !errors.Is(err, sdk.ErrUnavailable) {
				t.Errorf("TextMemory().Append = %v", err)
			}
			if _, err := s.Knowledge().Search("x", 1); !errors.Is(err, sdk.ErrUnavailable) || !strings.Contains(err.Error(), "knowledge") {
				t.Errorf("Knowledge().Search = %v", err)
			}
			if docs := s.DocMemory().Query("x", 3); docs != nil {
				t.Errorf("DocMemory().Query = %v", docs)
			}
			if err := s.LLM().SetSource("x"); !errors.Is(err, sdk.ErrUnavailable) {
				t.Errorf("LLM().SetSource = %v", err)
			}
			s.RegisterStopHandler(func() { order = append(order, 1) })
			s.RegisterStopHandler(func() { order = append(order, 2) })
			s.RegisterStopHandler(func() { panic("contained") })
			return nil
		}}, nil
	}, nil)
	host.RunStopHandlers(h.SDK())
	host.RunStopHandlers(h.SDK()) // second run: nothing left
	if len(order) != 2 || order[0] != 2 || order[1] != 1 {
		t.Fatalf("stop handlers ran %v, want [2 1]", order)
	}
}

func TestSchemaFor(t *testing.T) {
	type In struct {
		City string   `json:"city" jsonschema:"城市名称"`
		Days int      `json:"days,omitempty"`
		Tags []string `json:"tags,omitempty"`
	}
	s, err := sdk.SchemaFor[In]()
	if err != nil {
		t.Fatal(err)
	}
	props := s["properties"].(map[string]any)
	city := props["city"].(map[string]any)
	if s["type"] != "object" || city["type"] != "string" || city["description"] != "城市名称" {
		t.Fatalf("schema %v", s)
	}
	req := s["required"].([]any)
	if len(req) != 1 || req[0] != "city" {
		t.Fatalf("required %v", req)
	}
}
