package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"gitcode.com/JianFeeeee/homeagent-sdk/sdk"
)

type notes struct {
	name string
	mu   sync.Mutex
	file string
}

func (p *notes) Name() string { return p.name }

func (p *notes) Start(s *sdk.PluginSDK) error {
	s.SetAutoRestart(true)
	dir, err := s.Settings().GetCore("core.daemon.data_dir")
	if err != nil || dir == "" {
		dir = "."
	}
	p.file = filepath.Join(fmt.Sprint(dir), "notes.txt")
	prefix := p.name + "_"
	if err := s.RegisterTool(prefix+"add", sdk.ToolDef{
		Name:        prefix + "add",
		Description: "Adds a note.",
		Parameters: map[string]interface{}{
			"type":       "object",
			"properties": map[string]interface{}{"text": map[string]interface{}{"type": "string"}},
			"required":   []string{"text"},
		},
	}, p.add); err != nil {
		return err
	}
	s.RegisterStage(sdk.StagePreAction, func(ctx *sdk.StageContext) error { return nil })
	return nil
}

func (p *notes) add(args map[string]interface{}) (interface{}, error) {
	text, _ := args["text"].(string)
	p.mu.Lock()
	defer p.mu.Unlock()
	f, err := os.OpenFile(p.file, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fmt.Fprintln(f, text)
	return map[string]interface{}{"content": "noted: " + strings.ToUpper(text)}, nil
}

func (p *notes) Stop() error { return nil }

func NewPlugin(name string, config map[string]interface{}) (sdk.Plugin, error) {
	return &notes{name: name}, nil
}
