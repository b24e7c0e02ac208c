package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/daemon"
	"github.com/hearth-agent/hearth/internal/datadir"
)

const tokenUsage = `Usage:
  hearth token            print the token the HTTP API and the web UI need
  hearth token --rotate   replace it: the old one stops working at once,
                          a running hearth serve included

Flags:
  --data-dir DIR          data directory (default $HEARTH_HOME or ~/.hearth)
`

// runToken prints the data directory's API token, making it if there is
// none, or replaces it.
func runToken(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hearth token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, tokenUsage) }
	dataDir := fs.String("data-dir", "", "")
	rotate := fs.Bool("rotate", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hearth token: unexpected argument %q\n\n%s", fs.Arg(0), tokenUsage)
		return 2
	}
	dir, err := config.DataDir(*dataDir, nil)
	if err != nil {
		fmt.Fprintf(stderr, "hearth token: %v\n", err)
		return 1
	}
	if _, err := datadir.Secure(dir); err != nil {
		fmt.Fprintf(stderr, "hearth token: %v\n", err)
		return 1
	}
	get := daemon.Token
	if *rotate {
		get = daemon.Rotate
	}
	tok, err := get(dir)
	if err != nil {
		fmt.Fprintf(stderr, "hearth token: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, tok)
	if *rotate {
		fmt.Fprintln(stderr, "hearth token: replaced; the old token no longer works (a running hearth serve too): open the web UI again with the new one\n"+
			"hearth token：已更换；旧令牌立即失效（包括正在运行的 hearth serve）：请用新令牌重新打开网页界面")
	}
	return 0
}
