// Command peers measures Hearth side by side with other agent hosts
// (picoclaw, xbot) against one scripted OpenAI-compatible streaming
// provider on loopback, with the same number of tools offered by each.
//
// Each host gets its built-in tools plus enough extra tools to total
// -tools: Hearth from a child plugin, picoclaw and xbot from an MCP stdio
// server, both served by this program with the same names, descriptions
// and schemas. The number of built-in tools is counted first, from the
// request of a turn with no extra tools; every measured request is then
// checked to carry exactly -tools tools.
//
// In interleaved rounds (the hosts' order rotating), it measures:
//   - the wall time of a one-shot tool turn (start the CLI, one tool call,
//     the answer, exit);
//   - the host's own time per answer-only turn in a running interactive
//     process: the time from writing the line to reading the answer, minus
//     the provider's own time from its timestamps;
//   - the idle resident memory of that process (and with its children);
//   - the size of the first request of a turn (what the user pays for).
//
// Usage (see docs/benchmarks.md):
//
//	go run ./internal/peers -rounds 5 \
//	    -picoclaw /path/to/picoclaw -picoclaw-rev <commit> \
//	    -xbot /path/to/xbot-cli -xbot-rev <commit>
//
// Without -hearth it builds ./cmd/hearth. Peers are optional; their
// paths may also come from HEARTH_PEERS_PICOCLAW and HEARTH_PEERS_XBOT.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	var cfg config
	flag.StringVar(&cfg.hearth, "hearth", "", "hearth binary (default: built from ./cmd/hearth)")
	flag.StringVar(&cfg.hearthRev, "hearth-rev", "", "Hearth's source revision, for the table (default: the built tree's)")
	flag.StringVar(&cfg.picoclaw, "picoclaw", os.Getenv("HEARTH_PEERS_PICOCLAW"), "picoclaw binary (optional)")
	flag.StringVar(&cfg.picoclawRev, "picoclaw-rev", os.Getenv("HEARTH_PEERS_PICOCLAW_REV"), "picoclaw's source revision, for the table")
	flag.StringVar(&cfg.xbot, "xbot", os.Getenv("HEARTH_PEERS_XBOT"), "xbot-cli binary (optional)")
	flag.StringVar(&cfg.xbotRev, "xbot-rev", os.Getenv("HEARTH_PEERS_XBOT_REV"), "xbot's source revision, for the table")
	flag.IntVar(&cfg.tools, "tools", 50, "tools offered by each host")
	flag.IntVar(&cfg.rounds, "rounds", 5, "interleaved rounds")
	flag.IntVar(&cfg.turns, "turns", 20, "answer-only turns per host and round")
	flag.Parse()
	if err := measure(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "peers:", err)
		os.Exit(1)
	}
}

// measure builds Hearth if no binary was given, runs the harness in a
// scratch directory it removes afterwards, and prints the table.
func measure(cfg config) error {
	dir, err := os.MkdirTemp("", "hearth-peers-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if cfg.hearth == "" {
		cfg.hearth = filepath.Join(dir, "hearth")
		rev, err := buildHearth(cfg.hearth)
		if err != nil {
			return err
		}
		if cfg.hearthRev == "" {
			cfg.hearthRev = rev
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cfg.self, cfg.dir, cfg.log = self, dir, os.Stderr
	res, err := run(cfg)
	if err != nil {
		return err
	}
	res.print(os.Stdout)
	return nil
}

// buildHearth builds Hearth's binary from this module's tree and returns
// the tree's git revision ("" if it has none).
func buildHearth(bin string) (string, error) {
	root, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/hearth-agent/hearth").Output()
	if err != nil {
		return "", fmt.Errorf("finding Hearth's source: %w", err)
	}
	dir := strings.TrimSpace(string(root))
	build := exec.Command("go", "build", "-o", bin, "./cmd/hearth")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building hearth: %w\n%s", err, out)
	}
	rev, _ := exec.Command("git", "-C", dir, "describe", "--always", "--dirty").Output()
	return strings.TrimSpace(string(rev)), nil
}
