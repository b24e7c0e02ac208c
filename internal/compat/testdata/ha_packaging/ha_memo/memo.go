package main

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sync"

	"gitcode.com/JianFeeeee/homeagent-sdk/sdk"
)

// item is one memo.
type item struct {
	ID   int    `json:"id"`
	Text string `json:"text"`
}

type memoPlugin struct {
	name  string
	mu    sync.Mutex
	items []item
	path  string
}

func (p *memoPlugin) Name() string { return p.name }

func (p *memoPlugin) Start(s *sdk.PluginSDK) error {
	s.SetAutoRestart(false)
	base, err := s.Settings().GetCore("core.daemon.data_dir")
	if err != nil || base == "" {
		base = "."
	}
	p.path = filepath.Join(fmt.Sprint(base), "memos.json")
	if b, err := os.ReadFile(p.path); err == nil {
		json.Unmarshal(b, &p.items)
	}
	tp := p.name + "_"
	if err := s.RegisterTool(tp+"save", sdk.ToolDef{
		Name:        tp + "save",
		Description: "Saves a memo.",
		Parameters: map[string]interface{}{
			"type":       "object",
			"properties": map[string]interface{}{"text": map[string]interface{}{"type": "string"}},
			"required":   []string{"text"},
		},
	}, p.save); err != nil {
		return err
	}
	if err := s.RegisterTool(tp+"count", sdk.ToolDef{
		Name:        tp + "count",
		Description: "Counts the memos.",
		Parameters:  map[string]interface{}{"type": "object", "properties": map[string]interface{}{}},
	}, func(map[string]interface{}) (interface{}, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return map[string]interface{}{"content": fmt.Sprintf("%d memos", len(p.items)), "count": len(p.items)}, nil
	}); err != nil {
		return err
	}
	s.RegisterStage(sdk.StagePreAction, func(ctx *sdk.StageContext) error {
		ctx.Lock()
		defer ctx.Unlock()
		ctx.ContextMsgs = append(ctx.ContextMsgs, map[string]interface{}{"role": "system", "content": "call " + tp + "count for the memo count"})
		return nil
	})
	s.RegisterStopHandler(func() { log.Printf("[%s] stopping", p.name) })
	s.RegisterOnRemoveHandler(func() { os.Remove(p.path) })
	log.Printf("[%s] started", p.name)
	return nil
}

func (p *memoPlugin) save(args map[string]interface{}) (interface{}, error) {
	text, _ := args["text"].(string)
	if text == "" {
		return map[string]interface{}{"isError": true, "content": "text is required"}, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.items = append(p.items, item{ID: len(p.items) + 1, Text: text})
	b, _ := json.Marshal(p.items)
	if err := os.WriteFile(p.path, b, 0o644); err != nil {
		return nil, err
	}
	return map[string]interface{}{"content": fmt.Sprintf("saved memo %d: %s", len(p.items), text)}, nil
}

func (p *memoPlugin) Stop() error { return nil }

func NewPlugin(name string, config map[string]interface{}) (sdk.Plugin, error) {
	return &memoPlugin{name: name}, nil
}
