package daemon

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
)

// SocketFile is the daemon's Unix socket in the data directory. The
// commands on this machine (hearth chat, ask, plugin, ...) talk to the
// daemon through it rather than its TCP port: the data directory is
// private (0700), so no other user can connect to it or put a socket of
// their own in its place, and the token never travels where another
// program might be listening.
const SocketFile = "hearth.sock"

// socketHost is the Host of requests through the socket.
const socketHost = "localhost"

// ListenSocket listens on dir's socket, replacing a stale socket a
// daemon that was killed left there (the caller holds the data
// directory's lock, so no live daemon owns it). The socket file goes
// when the listener is closed.
func ListenSocket(dir string) (net.Listener, error) {
	path := filepath.Join(dir, SocketFile)
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("%s exists and is not a socket", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// ThroughSocket lets requests that came through the socket pass the
// server's Host check: only the owner's processes can reach it.
func ThroughSocket(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := r.Context().Value(http.LocalAddrContextKey).(*net.UnixAddr); ok {
			r.Host = socketHost
		}
		h.ServeHTTP(w, r)
	})
}

// socketClient returns a client whose connections go to dir's socket,
// and the base URL to use with it.
func socketClient(dir string) (*http.Client, string) {
	path := filepath.Join(dir, SocketFile)
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", path)
		},
	}
	return &http.Client{Transport: tr}, "http://" + socketHost
}
