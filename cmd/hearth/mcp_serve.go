package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/config"
	"github.com/hearth-agent/hearth/internal/daemon"
	"github.com/hearth-agent/hearth/internal/mcpserve"
	"github.com/hearth-agent/hearth/internal/server"
)

const mcpServeUsage = `Usage: hearth mcp serve [--data-dir DIR] [--http ADDR [--insecure-listen]] [-v]

Offers Hearth's tools, under your Hearth policy, to an MCP client (Claude
Desktop, Claude Code, Cursor, the MCP Inspector). By default it speaks MCP
on stdin/stdout: configure it in the client as the command
"hearth mcp serve". Logs go to stderr, never stdout.

When a daemon (hearth serve) runs for the data directory, the stdio session
is passed to the daemon's /mcp endpoint; otherwise this process opens the
data directory itself.

  --http ADDR          serve MCP over Streamable HTTP at http://ADDR/mcp instead
                       (loopback only unless --insecure-listen; clients send
                       "Authorization: Bearer TOKEN", the token hearth token prints)
  --insecure-listen    allow a non-loopback ADDR without TLS
  -v                   debug logs on stderr

See docs/mcp-server.md. / 详见 docs/mcp-server.md。
`

// runMCPServe runs `hearth mcp serve`: Hearth's tools offered to an MCP
// client over stdio (bridged to a running daemon's /mcp, or served from
// the data directory opened here) or, with --http, over Streamable HTTP.
func runMCPServe(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("hearth mcp serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {} // said below: to stdout for -h, to stderr for a mistake
	dataDir := fs.String("data-dir", "", "")
	httpAddr := fs.String("http", "", "")
	insecure := fs.Bool("insecure-listen", false, "")
	verbose := fs.Bool("v", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			io.WriteString(stdout, mcpServeUsage)
			return 0
		}
		io.WriteString(stderr, mcpServeUsage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "hearth mcp serve: unexpected argument %q\n%s", fs.Arg(0), mcpServeUsage)
		return 2
	}
	// A signal ends the session cleanly: the plugins stop, the data
	// directory is closed.
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	level := slog.LevelWarn
	if *verbose {
		level = slog.LevelDebug
	}
	if *httpAddr != "" {
		if err := checkMCPListen(*httpAddr, *insecure); err != nil {
			fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
			return 2
		}
	}
	dir, err := config.DataDir(*dataDir, nil)
	if err == nil {
		c, ferr := daemon.Find(ctx, dir)
		switch {
		case ferr == nil && *httpAddr != "":
			u := daemonURL(dir, c)
			fmt.Fprintf(stderr, "hearth mcp serve: Hearth is already serving %s at %s: MCP clients can use %s/mcp with the token `hearth token` prints\n"+
				"hearth mcp serve：Hearth 已在 %s 提供服务：MCP 客户端可使用 %s/mcp，令牌用 `hearth token` 查看\n",
				dir, u, u, u, u)
			return 1
		case ferr == nil:
			return mcpBridge(ctx, c, stdin, stdout, stderr)
		case !errors.Is(ferr, daemon.ErrNoDaemon):
			fmt.Fprintf(stderr, "hearth mcp serve: %v\n", ferr)
			return 1
		}
	}
	a, err := app.Open(ctx, &app.Options{DataDir: *dataDir, Plugins: app.PluginsWait, LogTo: stderr, LogLevel: level})
	if err != nil {
		fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
		return 1
	}
	defer a.Close()
	for _, w := range a.Warnings {
		fmt.Fprintf(stderr, "hearth mcp serve: %s\n", w)
	}
	s := mcpserve.New(a.Kernel, &mcpserve.Options{Version: server.Version, Logger: a.Logger.With("component", "mcp")})
	if *httpAddr != "" {
		return mcpServeHTTP(ctx, a, s, *httpAddr, stderr)
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	if err := s.Run(ctx, t); err != nil && !errors.Is(err, io.EOF) && ctx.Err() == nil {
		fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
		return 1
	}
	return 0
}

// daemonURL is the address MCP clients reach the daemon serving dir at:
// its serve.json's URL, not the Unix socket c talks over.
func daemonURL(dir string, c *daemon.Client) string {
	if info, err := daemon.ReadServeFile(dir); err == nil && info.URL != "" {
		return strings.TrimSuffix(info.URL, "/")
	}
	return c.BaseURL
}

// checkMCPListen refuses a listen address that is not host:port, or a
// non-loopback one without --insecure-listen: mcp serve has no TLS of its
// own, so the way to offer MCP over the network is hearth serve's /mcp.
func checkMCPListen(addr string, insecure bool) error {
	if _, err := checkListen(addr, true, false); err != nil {
		return err
	}
	host, _, _ := net.SplitHostPort(addr)
	if isLoopback(host) || insecure {
		return nil
	}
	return fmt.Errorf("refusing to listen on %s without TLS: the token and the tools' results would cross the network in clear text.\n"+
		"hearth mcp serve has no TLS of its own: run hearth serve --tls-cert CERT --tls-key KEY and point clients at its /mcp,\n"+
		"or put a reverse proxy with TLS in front and pass --insecure-listen, or listen on 127.0.0.1.\n"+
		"拒绝在 %s 上不加密监听：令牌和工具结果会以明文在网络上传输。hearth mcp serve 本身不支持 TLS：请用 hearth serve --tls-cert CERT --tls-key KEY 并让客户端连接其 /mcp，"+
		"或在前面放置启用 TLS 的反向代理并加上 --insecure-listen，或监听 127.0.0.1。", addr, addr)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// mcpServeHTTP serves s over Streamable HTTP at addr until ctx ends, to
// clients holding the data directory's API token.
func mcpServeHTTP(ctx context.Context, a *app.App, s *mcpserve.Server, addr string, stderr io.Writer) int {
	tokens := daemon.TokenSource(a.DataDir)
	if _, err := daemon.Token(a.DataDir); err != nil {
		fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
		return 1
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
		return 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go s.Watch(ctx)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.MCP() },
		&mcp.StreamableHTTPOptions{Logger: a.Logger.With("component", "mcp"), SessionTimeout: 30 * time.Minute})
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if want := tokens(); !ok || want == "" || !constantTimeEqual(got, want) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hearth"`)
			http.Error(w, "missing or wrong token: send Authorization: Bearer <token> (hearth token prints it)", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	url := clientURL(ln.Addr(), false) + "/mcp"
	fmt.Fprintf(stderr, "hearth mcp serve: MCP over Streamable HTTP at %s; clients send \"Authorization: Bearer TOKEN\" with the token `hearth token` prints\n"+
		"hearth mcp serve：MCP（Streamable HTTP）地址 %s；客户端需发送 \"Authorization: Bearer 令牌\"，令牌用 `hearth token` 查看\n", url, url)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-errc:
		fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
		return 1
	}
	sctx, scancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer scancel()
	hs.Shutdown(sctx)
	return 0
}

func constantTimeEqual(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// bearerTransport sends the daemon's token with every request.
type bearerTransport struct {
	token string
	next  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// mcpBridge passes the stdio session to the daemon's /mcp endpoint, so
// that the daemon alone owns the data directory: the SDK's stdio
// connection and its Streamable HTTP client connection, each message read
// from one written to the other, until either side ends.
//
// What the daemon sends outside an answer to a request (a tool list
// change) travels, before protocol 2026-07-28, on a stream the SDK's HTTP
// client connection opens for its own clients alone: through the bridge
// such messages wait for the client's next request. From 2026-07-28 the
// client asks for them (subscriptions/listen), a request like any other.
func mcpBridge(ctx context.Context, c *daemon.Client, stdin io.Reader, stdout, stderr io.Writer) int {
	next := http.DefaultTransport
	if c.HTTP != nil && c.HTTP.Transport != nil {
		next = c.HTTP.Transport
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	remote, err := (&mcp.StreamableClientTransport{Endpoint: strings.TrimSuffix(c.BaseURL, "/") + "/mcp",
		HTTPClient: &http.Client{Transport: bearerTransport{c.Token, next}}}).Connect(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "hearth mcp serve: connecting to the daemon at %s: %v\n", c.BaseURL, err)
		return 1
	}
	defer remote.Close()
	local, err := (&mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}).Connect(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
		return 1
	}
	defer local.Close()
	errc := make(chan error, 2)
	pump := func(from, to mcp.Connection) {
		for {
			msg, err := from.Read(ctx)
			if err != nil {
				errc <- err
				return
			}
			if err := to.Write(ctx, msg); err != nil {
				errc <- err
				return
			}
		}
	}
	go pump(local, remote)
	go pump(remote, local)
	err = <-errc
	cancel()
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) && !errors.Is(err, mcp.ErrConnectionClosed) {
		fmt.Fprintf(stderr, "hearth mcp serve: %v\n", err)
		return 1
	}
	return 0
}
