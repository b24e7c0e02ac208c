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
  hearth token                   print the token the HTTP API and the web UI
                                 need: the owner's, as good as a shell as you
  hearth token --rotate          replace it: the old one stops working at
                                 once, a running hearth serve included
  hearth token --openai          print the token to give an OpenAI client: it
                                 reaches only /v1/models and
                                 /v1/chat/completions (made on first use)
  hearth token --openai --rotate replace that one alone

Flags:
  --data-dir DIR          data directory (default $HEARTH_HOME or ~/.hearth)
`

// runToken prints the data directory's API token, or with --openai its
// client token, making it if there is none, or replaces it.
func runToken(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hearth token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, tokenUsage) }
	dataDir := fs.String("data-dir", "", "")
	rotate := fs.Bool("rotate", false, "")
	openai := fs.Bool("openai", false, "")
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
	switch {
	case *openai && *rotate:
		get = daemon.RotateClient
	case *openai:
		get = daemon.ClientToken
	case *rotate:
		get = daemon.Rotate
	}
	tok, err := get(dir)
	if err != nil {
		fmt.Fprintf(stderr, "hearth token: %v\n", err)
		return 1
	}
	fmt.Fprintln(stdout, tok)
	switch {
	case *openai && *rotate:
		fmt.Fprintln(stderr, "hearth token: replaced; OpenAI clients holding the old one are refused from now on (the API token is unchanged)\n"+
			"hearth token：已更换；持有旧令牌的 OpenAI 客户端从现在起被拒绝（API 令牌不变）")
	case *rotate:
		fmt.Fprintln(stderr, "hearth token: replaced; the old token no longer works (a running hearth serve too): open the web UI again with the new one\n"+
			"hearth token：已更换；旧令牌立即失效（包括正在运行的 hearth serve）：请用新令牌重新打开网页界面")
	}
	return 0
}
