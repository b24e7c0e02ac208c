package server

import (
	"net/http"
	"os"
)

// Health is GET /v1/health's answer.
type Health struct {
	Status  string `json:"status"` // "ok"
	Version string `json:"version"`
	PID     int    `json:"pid"`
	DataDir string `json:"data_dir"`
}

// Version is reported by /v1/health; cmd/hearth sets it.
var Version = "dev"

func (s *Server) healthRoutes() []route {
	return []route{{method: "GET", path: "/v1/health", summary: "Is the daemon up; its version, pid and data directory.",
		out: Health{}, h: func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, http.StatusOK, Health{Status: "ok", Version: Version, PID: os.Getpid(), DataDir: s.app.DataDir})
		}}}
}
