package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// host is one agent host under measurement, configured in a home of its
// own against the scripted provider.
type host struct {
	name string
	bin  string // the built binary
	rev  string // its source revision, as given

	home string   // its private home and working directory
	env  []string // added to the harness's environment

	// configure writes the host's configuration for extra added tools
	// (served by this program as a Hearth plugin or an MCP server).
	configure func(h *host, providerURL, self string, extra int) error
	// oneShot is the command line of a one-shot turn in a fresh session.
	oneShot func(msg, session string) []string
	// oneShotEnv, if set, is added to the environment of a one-shot turn.
	oneShotEnv func(h *host, session string) []string
	// interactive is the command line of a multi-turn process that reads
	// one message a line on stdin.
	interactive func(session string) []string
	// tty: the interactive process is a full-screen terminal UI, started
	// on a pseudo-terminal; the harness measures its idle memory but does
	// not drive its turns (its screen is redrawn by differences, so an
	// answer is not a string in its output).
	tty bool
	tui *host // a tty host's copy, in a home of its own, for its terminal UI
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// The model name is one Hearth knows the window of (gpt-4o, 128k), so no
// host trims its tool list for a small assumed window.
const model = "gpt-4o"

// hearthHost configures Hearth by its environment (OPENAI_BASE_URL,
// HEARTH_MODEL, HEARTH_HOME) and installs the extra tools as a child
// plugin with `hearth plugin install`.
func hearthHost(bin, rev string) *host {
	return &host{
		name: "hearth", bin: bin, rev: rev,
		configure: func(h *host, url, self string, extra int) error {
			h.env = []string{"HEARTH_HOME=" + filepath.Join(h.home, "data"), "OPENAI_BASE_URL=" + url,
				"OPENAI_API_KEY=sk-bench", "HEARTH_MODEL=" + model}
			if extra == 0 {
				return nil
			}
			src := filepath.Join(h.home, "bench-plugin")
			if err := writeJSON(filepath.Join(src, "plugin.json"), map[string]any{
				"id": "bench", "command": []string{self},
				"env": map[string]string{serveEnv: fmt.Sprintf("hearth:%d", extra)},
			}); err != nil {
				return err
			}
			_, _, err := runOnce(h, "plugin", "install", src)
			return err
		},
		oneShot:     func(msg, session string) []string { return []string{"ask", "--session", session, msg} },
		oneShotEnv:  func(*host, string) []string { return nil },
		interactive: func(session string) []string { return []string{"chat", "--session", session} },
	}
}

// picoclawHost configures picoclaw with PICOCLAW_HOME/config.json: one
// OpenAI-compatible model, its default built-in tools, and the extra
// tools as an MCP stdio server.
func picoclawHost(bin, rev string) *host {
	return &host{
		name: "picoclaw", bin: bin, rev: rev,
		configure: func(h *host, url, self string, extra int) error {
			h.env = []string{"PICOCLAW_HOME=" + h.home, "HOME=" + h.home}
			mcpCfg := map[string]any{"enabled": false}
			if extra > 0 {
				mcpCfg = map[string]any{"enabled": true, "servers": map[string]any{"bench": map[string]any{
					"enabled": true, "command": self,
					"env": map[string]string{serveEnv: fmt.Sprintf("mcp:%d", extra)},
				}}}
			}
			return writeJSON(filepath.Join(h.home, "config.json"), map[string]any{
				"version": 3,
				"agents": map[string]any{"defaults": map[string]any{
					"workspace": filepath.Join(h.home, "workspace"), "model_name": model,
					"context_window": 128000, "max_tokens": 4096,
				}},
				"model_list": []any{map[string]any{
					"model_name": model, "model": "openai/" + model, "api_keys": []string{"sk-bench"}, "api_base": url,
				}},
				"tools": map[string]any{"mcp": mcpCfg},
			})
		},
		oneShot:     func(msg, session string) []string { return []string{"agent", "-s", session, "-m", msg} },
		oneShotEnv:  func(*host, string) []string { return nil },
		interactive: func(session string) []string { return []string{"agent", "-s", session} },
	}
}

// xbotHost configures xbot-cli by its environment (LLM_*, XBOT_HOME) and
// adds the extra tools as an xbot stdio plugin in XBOT_HOME/plugins:
// xbot offers the tools of MCP servers only through its search_tools and
// load_tools, not in every request, while a plugin's tools are offered
// like its built-in ones. xbot-cli's session is keyed by its working
// directory (WORK_DIR), so each one-shot turn gets a fresh one. Its
// interactive mode is a full-screen terminal UI: the harness reads its
// idle memory on a pseudo-terminal but does not drive its turns.
func xbotHost(bin, rev string) *host {
	return &host{
		name: "xbot", bin: bin, rev: rev,
		configure: func(h *host, url, self string, extra int) error {
			xh := filepath.Join(h.home, ".xbot")
			h.env = []string{"HOME=" + h.home, "XBOT_HOME=" + xh, "LLM_PROVIDER=openai", "LLM_BASE_URL=" + url,
				"LLM_API_KEY=sk-bench", "LLM_MODEL=" + model}
			// A config.json that names the model too: without one the
			// terminal UI opens its first-run setup panel instead of the
			// chat, whatever the environment says.
			if err := writeJSON(filepath.Join(xh, "config.json"), map[string]any{
				"cli_setup_completed": true,
				"llm":                 map[string]any{"provider": "openai", "base_url": url, "api_key": "sk-bench", "model": model},
			}); err != nil {
				return err
			}
			if extra == 0 {
				return nil
			}
			dir := filepath.Join(xh, "plugins", "bench")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			run := filepath.Join(dir, "run.sh")
			script := fmt.Sprintf("#!/bin/sh\n%s=xbot:%d exec %q\n", serveEnv, extra, self)
			if err := os.WriteFile(run, []byte(script), 0o755); err != nil {
				return err
			}
			return writeJSON(filepath.Join(dir, "plugin.json"), map[string]any{
				"id": "bench", "name": "bench", "version": "1.0.0", "description": "the harness's extra tools",
				"runtime": "stdio", "entry": run, "activationEvents": []string{"onStart"},
				"permissions": []string{"tools.register"},
			})
		},
		oneShot:     func(msg, session string) []string { return []string{"-p", msg} },
		interactive: func(string) []string { return []string{"--new"} },
		tty:         true,
		oneShotEnv: func(h *host, session string) []string {
			dir := filepath.Join(h.home, "sessions", session)
			os.MkdirAll(dir, 0o755) // if it fails, xbot says so
			return []string{"WORK_DIR=" + dir}
		},
	}
}
