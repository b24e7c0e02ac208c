package main

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCheckListen(t *testing.T) {
	for _, tc := range []struct {
		addr          string
		tls, insecure bool
		warn          bool
		err           string
	}{
		{"127.0.0.1:8420", false, false, false, ""},
		{"[::1]:8420", false, false, false, ""},
		{"localhost:0", false, false, false, ""},
		{"0.0.0.0:8420", false, false, false, "refusing"},
		{"192.168.1.2:8420", false, false, false, "refusing"},
		{":8420", false, false, false, "refusing"},
		{"0.0.0.0:8420", true, false, false, ""},
		{"0.0.0.0:8420", false, true, true, ""},
		{"8420", false, false, false, "host:port"},
	} {
		warn, err := checkListen(tc.addr, tc.tls, tc.insecure)
		if (warn != "") != tc.warn || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s tls=%v insecure=%v: warning %q, err %v", tc.addr, tc.tls, tc.insecure, warn, err)
		}
	}
}

// config.json's serve section sets hearth serve's settings; flags win.
func TestServeFlagsOverConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"serve": {"listen": "127.0.0.1:9000", "log_level": "debug", "hosts": ["hearth.lan"], "shutdown_grace": "3s"}}`
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := serveFlags([]string{"--data-dir", dir}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s.listen != "127.0.0.1:9000" || s.level != slog.LevelDebug || s.grace != 3*time.Second || len(s.hosts) != 1 {
		t.Fatalf("from config: %+v", s)
	}
	s, err = serveFlags([]string{"--data-dir", dir, "--listen", "127.0.0.1:9001", "--log-level", "warn", "--grace", "1s"}, io.Discard)
	if err != nil || s.listen != "127.0.0.1:9001" || s.level != slog.LevelWarn || s.grace != time.Second {
		t.Fatalf("flags: %+v, %v", s, err)
	}
	s, err = serveFlags([]string{"--data-dir", t.TempDir()}, io.Discard)
	if err != nil || s.listen != DefaultListen || s.grace != defaultGrace || s.level != slog.LevelInfo {
		t.Fatalf("defaults: %+v, %v", s, err)
	}
	for _, args := range [][]string{{"--log-level", "loud"}, {"--tls-cert", "c.pem"}, {"extra"}} {
		if _, err := serveFlags(append([]string{"--data-dir", dir}, args...), io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
