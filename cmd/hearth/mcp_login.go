package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"time"

	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/datadir"
	"github.com/hearth-agent/hearth/internal/mcpauth"
	"github.com/hearth-agent/hearth/internal/settings"
	"github.com/hearth-agent/hearth/internal/store"
)

const mcpLoginUsage = `Usage:
  hearth mcp login NAME             authorize Hearth at the remote MCP server NAME
  hearth mcp login --logout NAME    forget NAME's tokens (the registered client is kept)
  hearth mcp login --logout --forget-client NAME
                                    forget the client too: the next login registers anew

NAME is an entry of config.json's "mcpServers" with a "url". Login prints an
address to open in a browser (and opens it when there is a display); after
you authorize Hearth there, the browser comes back to Hearth on
http://127.0.0.1:PORT/callback, and the tokens are stored as a secret
setting in Hearth's reserved namespace "mcp", which no plugin can read
(masked in hearth settings and the HTTP API). They are kept for the
server's address: when its url moves to another host, log in again. A
running hearth serve uses them at its next connect; hearth mcp reload NAME
connects now.

Flags:
  --data-dir DIR     data directory (default $HEARTH_HOME or ~/.hearth)
  --no-browser       print the address only
`

// runMCPLogin runs `hearth mcp login NAME`: the OAuth flow of a remote MCP
// server, whose tokens it stores; with --logout it forgets them.
func runMCPLogin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hearth mcp login", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // said below: to stdout for -h, to stderr for a mistake
	dataDir := fs.String("data-dir", "", "")
	logout := fs.Bool("logout", false, "")
	forget := fs.Bool("forget-client", false, "")
	noBrowser := fs.Bool("no-browser", false, "")
	var names []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, mcpLoginUsage)
				return 0
			}
			fmt.Fprint(stderr, mcpLoginUsage)
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		names = append(names, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(names) != 1 || *forget && !*logout {
		fmt.Fprint(stderr, mcpLoginUsage)
		return 2
	}
	name := names[0]
	fail := func(err error) int {
		fmt.Fprintf(stderr, "hearth mcp login: %v\n", err)
		return 1
	}
	dir, err := config.DataDir(*dataDir, nil)
	if err != nil {
		return fail(err)
	}
	if _, err := datadir.Secure(dir); err != nil {
		return fail(err)
	}
	cfg, err := config.Load(dir)
	if err != nil {
		return fail(err)
	}
	// The name as config.json spells it: names are compared without regard
	// to case, and the credentials are kept under the server's own name.
	srv, canonical, ok := cfg.MCPServerNamed(name)
	if ok {
		name = canonical
	}
	switch {
	case !ok:
		return fail(fmt.Errorf("config.json has no MCP server %q (hearth mcp list) / 配置中没有名为 %q 的 MCP 服务器", name, name))
	case srv.URL == "":
		return fail(fmt.Errorf("%s is a stdio server: only a remote one (with a url) logs in / %s 是本地（stdio）服务器，无需登录", name, name))
	}
	// The store is shared with a running hearth serve (SQLite, WAL): the
	// daemon reads the tokens at its next connect.
	st, err := store.Open(ctx, dir)
	if err != nil {
		return fail(err)
	}
	defer st.Close()
	svc := settings.New(st, dir)

	if *logout {
		err := mcpauth.Logout(svc, name, *forget)
		if errors.Is(err, mcpauth.ErrNotLoggedIn) {
			fmt.Fprintf(stdout, "%s was not logged in: nothing to forget. / %s 未登录，无需退出。\n", name, name)
			return 0
		}
		if err != nil {
			return fail(err)
		}
		fmt.Fprintf(stdout, "Logged out of %s: its tokens are forgotten. / 已退出 %s 的登录，令牌已删除。\n", name, name)
		return 0
	}
	opts := &mcpauth.LoginOptions{Out: stdout, Version: version}
	if !*noBrowser {
		opts.Open = openBrowser()
	}
	ctx, cancel := context.WithTimeout(ctx, loginTimeout)
	defer cancel()
	err = mcpauth.Login(ctx, svc, name, srv, opts)
	switch {
	case errors.Is(err, mcpauth.ErrNotRequired):
		fmt.Fprintf(stdout, "%s answered without asking for authorization: nothing to store. / %s 无需授权。\n", name, name)
		return 0
	case err != nil:
		return fail(err)
	}
	fmt.Fprintf(stdout, "Logged in to %s; the tokens are stored as Hearth's secret setting %s.%s (no plugin can read it).\n"+
		"已登录 %s，令牌已作为 Hearth 的机密设置 %s.%s 保存（任何插件都无法读取）。\n"+
		"A running hearth serve uses them at its next connect; to connect now: hearth mcp reload %s\n"+
		"正在运行的 hearth serve 会在下次连接时使用；立即重连：hearth mcp reload %s\n",
		name, mcpauth.Namespace, mcpauth.Key(name), name, mcpauth.Namespace, mcpauth.Key(name), name, name)
	return 0
}

// loginTimeout is how long a login waits for the user's authorization.
const loginTimeout = 10 * time.Minute

// openBrowser returns a function that opens an address in the user's
// browser, or nil where there is no display to open one on.
func openBrowser() func(ctx context.Context, addr string) error {
	var name string
	switch {
	case runtime.GOOS == "darwin":
		name = "open"
	case os.Getenv("DISPLAY") != "" || os.Getenv("WAYLAND_DISPLAY") != "":
		name = "xdg-open"
	default:
		return nil
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return nil
	}
	return func(ctx context.Context, addr string) error {
		cmd := exec.Command(path, addr)
		if err := cmd.Start(); err != nil {
			return err
		}
		go cmd.Wait() // the opener exits at once; reap it
		return nil
	}
}
