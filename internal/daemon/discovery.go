package daemon

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/hearth-agent/hearth/internal/datadir"
)

// ServeFile is the name, inside the data directory, of the file a running
// daemon describes itself in.
const ServeFile = "serve.json"

// ErrNoDaemon means no daemon serves the data directory: the commands
// work on it alone.
var ErrNoDaemon = errors.New("no Hearth daemon serves this data directory")

// ServeInfo is the content of serve.json: how to reach the daemon.
type ServeInfo struct {
	PID int `json:"pid"`
	// URL is where clients on this machine reach the API: the listen
	// address, with 127.0.0.1 for an unspecified host (0.0.0.0).
	URL string `json:"url"`
	// Listen is the address the daemon listens on, as given.
	Listen string `json:"listen"`
	// TLS says the daemon serves HTTPS with the certificate in TLSCert,
	// which clients pin (it may be self-signed).
	TLS     bool      `json:"tls"`
	TLSCert string    `json:"tls_cert,omitempty"`
	Started time.Time `json:"started"`
}

// WriteServeFile writes dir's serve.json (0600) for a daemon that listens.
func WriteServeFile(dir string, info *ServeInfo) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	if err := writePrivate(filepath.Join(dir, ServeFile), append(b, '\n')); err != nil {
		return fmt.Errorf("writing %s: %w", ServeFile, err)
	}
	return nil
}

// RemoveServeFile removes dir's serve.json, at the daemon's shutdown.
func RemoveServeFile(dir string) error {
	err := os.Remove(filepath.Join(dir, ServeFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// ReadServeFile reads dir's serve.json; fs.ErrNotExist when there is none.
// What it says may be stale (a killed daemon leaves it): Find checks.
func ReadServeFile(dir string) (*ServeInfo, error) {
	b, err := os.ReadFile(filepath.Join(dir, ServeFile))
	if err != nil {
		return nil, err
	}
	return parseServeInfo(b)
}

func parseServeInfo(b []byte) (*ServeInfo, error) {
	var info ServeInfo
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&info); err != nil {
		return nil, fmt.Errorf("reading %s: %w", ServeFile, err)
	}
	if info.PID <= 0 || info.URL == "" {
		return nil, fmt.Errorf("reading %s: no pid or url", ServeFile)
	}
	return &info, nil
}

// healthTimeout bounds Find's health check: a daemon on this machine
// answers at once.
const healthTimeout = 5 * time.Second

// Find returns a client for the daemon that serves dir, or ErrNoDaemon.
// A daemon serves dir when its serve.json names it, it holds dir's lock,
// and it answers GET /v1/health with the token: a serve.json left by a
// killed daemon is not believed (and is removed when the lock is free).
// A daemon that answers but refuses the token is an *APIError, not
// ErrNoDaemon: the user must know.
func Find(ctx context.Context, dir string) (*Client, error) {
	info, err := ReadServeFile(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoDaemon
	}
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrNoDaemon, err)
	}
	// Who holds the lock? Taking it for a moment is the portable way to
	// ask; whoever finds it free may remove the stale file.
	lock, err := datadir.Acquire(dir)
	var busy *datadir.LockedError
	switch {
	case err == nil:
		_ = RemoveServeFile(dir)
		_ = lock.Release()
		return nil, ErrNoDaemon
	case errors.As(err, &busy):
		if busy.PID != 0 && busy.PID != info.PID {
			return nil, ErrNoDaemon // another process (a chat) owns it; the file is stale
		}
	default:
		return nil, err
	}
	tok, err := readToken(dir)
	if err != nil {
		return nil, err
	}
	c := &Client{BaseURL: info.URL, Token: tok, PID: info.PID, HTTP: &http.Client{}}
	if info.TLS {
		tr, err := pinnedTransport(info.TLSCert)
		if err != nil {
			return nil, err
		}
		c.HTTP.Transport = tr
	}
	hctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	h, err := c.Health(hctx)
	var apiErr *APIError
	switch {
	case errors.As(err, &apiErr):
		return nil, fmt.Errorf("the Hearth daemon (pid %d, %s) serves %s: %w", info.PID, info.URL, dir, err)
	case err != nil:
		return nil, fmt.Errorf("%w (the daemon in %s does not answer: %v)", ErrNoDaemon, ServeFile, err)
	case h.PID != info.PID:
		return nil, fmt.Errorf("%w (%s answers for pid %d, not %d)", ErrNoDaemon, info.URL, h.PID, info.PID)
	}
	return c, nil
}

// pinnedTransport trusts exactly the certificate in certFile, the one the
// daemon serves: the address clients dial (127.0.0.1) need not be a name
// in it, and it may be self-signed.
func pinnedTransport(certFile string) (*http.Transport, error) {
	b, err := os.ReadFile(certFile)
	if err != nil {
		return nil, fmt.Errorf("reading the daemon's certificate: %w", err)
	}
	block, _ := pem.Decode(b)
	if block == nil {
		return nil, fmt.Errorf("no PEM certificate in %s", certFile)
	}
	want, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("the daemon's certificate %s: %w", certFile, err)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{
		// Verification is VerifyConnection's pin below, not the roots.
		InsecureSkipVerify: true, //nolint:gosec
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 || !cs.PeerCertificates[0].Equal(want) {
				return errors.New("the daemon's certificate is not the one in its serve.json")
			}
			return nil
		},
	}
	return tr, nil
}
