package server

import (
	"context"
	"net/http"
	"path/filepath"
)

// CLIRequest is POST /v1/cli's body: a hearth command line for the daemon
// to run on its own running app, as `hearth` would have run it alone.
type CLIRequest struct {
	// Args are the command line after "hearth": ["policy", "set",
	// "time__now", "ask"].
	Args []string `json:"args"`
	// Stdin is what the command reads from its standard input (the value
	// of `hearth settings set PLUGIN KEY`, a secret read unechoed by the
	// client). It is never logged.
	Stdin string `json:"stdin,omitempty"`
	// Cwd is the client's working directory, absolute: relative paths in
	// Args (`hearth plugin install ./folder`) are resolved against it.
	Cwd string `json:"cwd,omitempty"`
	// Env is the client's environment as far as the command needs it; no
	// command reads any today.
	Env map[string]string `json:"env,omitempty"`
}

// CLIResult is POST /v1/cli's answer: what the command printed and its
// exit code. A command that fails still answers 200, with its code.
type CLIResult struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Code   int    `json:"code"`
}

// CLIRunner runs one command for a client. It must not keep req.Stdin
// beyond the call nor log it.
type CLIRunner func(ctx context.Context, req *CLIRequest) *CLIResult

// CLIHandler is the Options.CLI handler over run: it reads and checks a
// CLIRequest and answers run's CLIResult.
func CLIHandler(run CLIRunner) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req CLIRequest
		if !decodeJSON(w, r, &req) {
			return
		}
		if len(req.Args) == 0 {
			writeError(w, http.StatusBadRequest, "no_command", "args is empty: give the command line after \"hearth\"")
			return
		}
		if req.Cwd != "" && !filepath.IsAbs(req.Cwd) {
			writeError(w, http.StatusBadRequest, "invalid_cwd", "cwd must be an absolute path")
			return
		}
		writeJSON(w, http.StatusOK, run(r.Context(), &req))
	})
}

// cliRoutes serves POST /v1/cli with Options.CLI; without it (a server
// not run by hearth serve) the route answers 404, and is still listed.
func (s *Server) cliRoutes() []route {
	h := func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, http.StatusNotFound, "no_cli", "this server runs no hearth commands for clients")
	}
	if s.opts.CLI != nil {
		h = s.opts.CLI.ServeHTTP
	}
	return []route{{method: "POST", path: "/v1/cli",
		summary: "Run a hearth command (plugin, policy, settings, audit, tools) in the daemon, for the hearth CLI.",
		in:      CLIRequest{}, out: CLIResult{}, h: h}}
}
