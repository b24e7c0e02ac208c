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
	// interactive is the command line of a multi-turn process that reads
	// one message a line on stdin; nil if the host has none usable here.
	interactive func(session string) []string
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
		interactive: func(session string) []string { return []string{"agent", "-s", session} },
	}
}

// xbotHost is filled in below once its configuration is known.
func xbotHost(bin, rev string) *host { return nil }
