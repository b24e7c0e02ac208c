package pluginhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hearth-agent/hearth/sdk"
)

// xbot's script runtime (plugin/script_runtime.go in xbot): a plugin whose
// plugin.json says "runtime": "script" is a program run once per trigger,
// not a process that stays. Its contributes.ui entries are widgets whose
// content is the program's output; each entry's triggers
// ("PostToolUse:FileReplace*") say when to run it, and so do the entries
// of contributes.hooks. The program learns why it runs from XBOT_*
// variables: XBOT_HOOK_EVENT, XBOT_TOOL_NAME (the name the tool's plugin
// registered), XBOT_TOOL_INPUT, XBOT_TOOL_OUTPUT, XBOT_WORK_DIR,
// XBOT_WIDGET_ID.
//
// Hearth has no terminal widget slots (infoBar, toolHint): a widget's
// latest output is kept (Process.Widgets) and logged; contributes.commands
// and refreshInterval are refused with a log line naming them. A script
// plugin never guards calls: a PreToolUse trigger only observes.

// xbotScriptTimeout bounds one run of a script, as in xbot.
const xbotScriptTimeout = 10 * time.Second

// xbotScriptContrib is what Hearth reads of a script plugin's contributes.
type xbotScriptContrib struct {
	UI []struct {
		ID              string   `json:"id"`
		Slot            string   `json:"slot"`
		Sync            bool     `json:"sync"`
		RefreshInterval string   `json:"refreshInterval"`
		Triggers        []string `json:"triggers"`
	} `json:"ui"`
	Hooks    []xbotHook `json:"hooks"`
	Commands []struct {
		Name string `json:"name"`
	} `json:"commands"`
}

// Widget is the latest output of one of a script plugin's widgets.
type Widget struct {
	ID      string
	Slot    string
	Text    string
	Updated time.Time
}

// xbotWidgets holds a script plugin's widget outputs.
type xbotWidgets struct {
	mu sync.Mutex
	by map[string]Widget
}

// Widgets returns the latest output of each widget of a script plugin,
// sorted by id; nil for other plugins.
func (p *Process) Widgets() []Widget {
	p.mu.Lock()
	w := p.widgets
	p.mu.Unlock()
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Widget, 0, len(w.by))
	for _, x := range w.by {
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// xbotTrigger is one reason to run the script: an event, a tool matcher,
// and the widget whose content the run produces ("" for a hook).
type xbotTrigger struct {
	event, widget, slot string
	m                   xbotMatcher
}

// runScript serves a script plugin until Stop: it registers a stage
// handler per trigger and runs the script when one fires.
func (p *Process) runScript() (autoRestart bool, err error) {
	var c xbotScriptContrib
	if len(p.m.Contributes) > 0 {
		if err := json.Unmarshal(p.m.Contributes, &c); err != nil {
			return false, fmt.Errorf("contributes: %w", err)
		}
	}
	if len(p.m.Command) == 0 {
		return false, errors.New("no entry to run")
	}
	dataDir := filepath.Join(p.opts.DataDir, "plugin_data", p.name)
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return true, fmt.Errorf("creating the data directory: %w", err)
	}
	if err := p.opts.Host.SetManifest(p.name, sdk.Manifest{ID: p.name, Name: p.name, Version: "0.0.0", DefaultModes: p.m.DefaultModes}); err != nil {
		return false, err
	}
	widgets := &xbotWidgets{by: map[string]Widget{}}
	p.mu.Lock()
	p.widgets = widgets
	p.mu.Unlock()

	var triggers []xbotTrigger
	add := func(event, matcher, widget, slot string) {
		if ok, why := xbotEventSupported(event); !ok {
			p.log.Warn("xbot script trigger refused: Hearth has no counterpart for this event", "event", event, "widget", widget, "why", why)
			return
		}
		m, err := compileXbotMatcher(matcher)
		if err != nil {
			p.log.Warn("xbot script trigger refused", "event", event, "widget", widget, "err", err)
			return
		}
		triggers = append(triggers, xbotTrigger{event: event, widget: widget, slot: slot, m: m})
	}
	for _, ui := range c.UI {
		if ui.RefreshInterval != "" {
			p.log.Warn("xbot widget refreshInterval not supported by Hearth: it runs on its triggers and at start only", "widget", ui.ID, "refreshInterval", ui.RefreshInterval)
		}
		for _, t := range ui.Triggers {
			event, matcher, ok := strings.Cut(t, ":")
			if !ok {
				p.log.Warn("xbot script trigger refused: want Event:Matcher", "trigger", t, "widget", ui.ID)
				continue
			}
			add(event, matcher, ui.ID, ui.Slot)
		}
	}
	for _, h := range c.Hooks {
		add(h.Event, h.Matcher, "", "")
	}
	for _, cmd := range c.Commands {
		p.log.Warn("xbot script command refused: Hearth has no slash commands for plugins", "command", cmd.Name)
	}
	run := func(ctx context.Context, tr xbotTrigger, env []string) {
		out, err := p.runScriptOnce(ctx, dataDir, tr.widget, env)
		if err != nil {
			p.log.Warn("xbot script failed", "event", tr.event, "widget", tr.widget, "err", err)
			return
		}
		if tr.widget == "" || out == "" {
			return
		}
		widgets.mu.Lock()
		widgets.by[tr.widget] = Widget{ID: tr.widget, Slot: tr.slot, Text: out, Updated: time.Now()}
		widgets.mu.Unlock()
		p.mu.Lock()
		p.changedLocked() // for those who wait on the status
		p.mu.Unlock()
		p.opts.Widgets.changed(p.name) // for the web UI
		p.log.Debug("xbot widget updated", "widget", tr.widget, "slot", tr.slot, "text", truncateText(out, 500))
	}
	for _, tr := range triggers {
		p.registerScriptTrigger(tr, run)
	}
	p.opts.Host.ResumeHooks(p.name)
	p.markRunning(0, "xbot script")
	// A widget shows something from the start, as in xbot.
	for _, ui := range c.UI {
		run(context.Background(), xbotTrigger{widget: ui.ID, slot: ui.Slot}, nil)
	}
	<-p.stop
	return false, nil
}

// registerScriptTrigger runs the script when tr's event happens.
func (p *Process) registerScriptTrigger(tr xbotTrigger, run func(context.Context, xbotTrigger, []string)) {
	env := func(tool, input, output string) []string {
		e := []string{"XBOT_HOOK_EVENT=" + tr.event}
		if tool != "" {
			e = append(e, "XBOT_TOOL_NAME="+tool)
		}
		if input != "" {
			e = append(e, "XBOT_TOOL_INPUT="+input)
		}
		if output != "" {
			// Linux refuses one environment string over 128 KiB: a larger
			// result would keep the script from starting at all.
			e = append(e, "XBOT_TOOL_OUTPUT="+truncateText(output, 64<<10))
		}
		return e
	}
	toolCall := func(sc *sdk.StageContext) (tool, input string, ok bool) {
		if len(sc.ToolCalls) != 1 {
			return "", "", false
		}
		tool = p.xbotToolName(sc.ToolCalls[0].Name)
		if !tr.m.matchTool(sc.ToolCalls[0].Name, tool) {
			return "", "", false
		}
		b, _ := json.Marshal(sc.ToolCalls[0].Arguments)
		return tool, string(b), true
	}
	switch tr.event {
	case xbotPreToolUse:
		p.opts.Host.RegisterStage(p.name, sdk.StageBeforeToolcall, false, func(sc *sdk.StageContext) error {
			if tool, input, ok := toolCall(sc); ok {
				run(context.Background(), tr, env(tool, input, ""))
			}
			return nil
		})
	case xbotPostToolUse, xbotPostToolUseFailure:
		failure := tr.event == xbotPostToolUseFailure
		p.opts.Host.RegisterStage(p.name, sdk.StageAfterToolcall, false, func(sc *sdk.StageContext) error {
			tool, input, ok := toolCall(sc)
			if !ok || len(sc.ToolResults) != 1 || sc.ToolResults[0].Success == failure {
				return nil
			}
			out, isText := sc.ToolResults[0].Result.(string)
			if !isText {
				b, _ := json.Marshal(sc.ToolResults[0].Result)
				out = string(b)
			}
			run(context.Background(), tr, env(tool, input, out))
			return nil
		})
	case xbotUserPromptSubmit, xbotSessionStart:
		sessions := &xbotSessions{}
		p.opts.Host.RegisterStage(p.name, sdk.StageOnInput, false, func(sc *sdk.StageContext) error {
			if tr.event == xbotUserPromptSubmit || sessions.first(sc.Channel+"/"+sc.ChatID) {
				run(context.Background(), tr, env("", "", ""))
			}
			return nil
		})
	case xbotAgentStop:
		p.opts.Host.RegisterStage(p.name, sdk.StageAfterOutput, false, func(sc *sdk.StageContext) error {
			run(context.Background(), tr, env("", "", ""))
			return nil
		})
	}
}

// runScriptOnce runs the plugin's entry once in Hearth's working
// directory, with the plugin's minimal environment, the XBOT_* variables
// and a deadline, and returns its output as xbot reads it: all of it after
// an "md|" or "diff|" prefix, else its first line.
func (p *Process) runScriptOnce(ctx context.Context, dataDir, widget string, extra []string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, xbotScriptTimeout)
	defer cancel()
	args := append([]string(nil), p.m.Command...)
	// xbot resolves the script (the entry's second word) in the plugin
	// folder, and the program itself on PATH.
	if len(args) > 1 && !filepath.IsAbs(args[1]) {
		if _, err := os.Stat(filepath.Join(p.dir, args[1])); err == nil {
			args[1] = filepath.Join(p.dir, args[1])
		}
	}
	if !filepath.IsAbs(args[0]) && filepath.Base(args[0]) != args[0] {
		args[0] = filepath.Join(p.dir, args[0])
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	wd, err := os.Getwd()
	if err != nil {
		wd = p.dir
	}
	cmd.Dir = wd
	cmd.Env = append(p.minimalEnv(dataDir), "XBOT_WORK_DIR="+wd)
	if widget != "" {
		cmd.Env = append(cmd.Env, "XBOT_WIDGET_ID="+widget)
	}
	cmd.Env = append(cmd.Env, extra...)
	// A child the script leaves running with our pipes open must not hold
	// the turn past the script's own deadline.
	cmd.WaitDelay = 2 * time.Second
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if s := strings.TrimSpace(stderr.String()); s != "" {
		for _, l := range strings.Split(s, "\n") {
			p.stderr.add(l)
		}
	}
	if err != nil {
		return "", fmt.Errorf("running %s: %w", strings.Join(p.m.Command, " "), err)
	}
	text := strings.TrimSpace(string(out))
	if strings.HasPrefix(text, "md|") || strings.HasPrefix(text, "diff|") {
		return text, nil
	}
	first, _, _ := strings.Cut(text, "\n")
	return first, nil
}

// Widgets returns the widget outputs of the running script plugin named
// name (its plugin name), or nil.
func (m *Manager) Widgets(name string) []Widget {
	m.mu.Lock()
	mp := m.procs[name]
	m.mu.Unlock()
	if mp == nil || mp.proc == nil {
		return nil
	}
	return mp.proc.Widgets()
}
