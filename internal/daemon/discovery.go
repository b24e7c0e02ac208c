package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
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
	// TLS says the daemon serves HTTPS with the certificate whose DER
	// encoding's SHA-256 is TLSFingerprint (lowercase hex), which clients
	// pin (it may be self-signed). TLSCert is the certificate's file, for
	// people: clients do not read it (it may change on disk while the
	// daemon serves the one it loaded).
	// Socket is the daemon's Unix socket (SocketFile), which clients on
	// this machine use instead of URL; empty when it could not listen on
	// one.
	Socket         string    `json:"socket,omitempty"`
	TLS            bool      `json:"tls"`
	TLSCert        string    `json:"tls_cert,omitempty"`
	TLSFingerprint string    `json:"tls_sha256,omitempty"`
	Started        time.Time `json:"started"`
}

// CertFingerprint is the pin of a certificate: the lowercase hex SHA-256
// of its DER encoding.
func CertFingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	return hex.EncodeToString(sum[:])
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
// and it proves it knows dir's token (GET /v1/hello, Client.Verify) before
// the token is sent anywhere: a serve.json left by a killed daemon is not
// believed (and is removed when the lock is free), and whoever else holds
// the port gets no token. A server there that cannot prove it is an
// ErrUnproven error, and a daemon that refuses the token an *APIError,
// not ErrNoDaemon: the user must know.
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
	c := &Client{BaseURL: info.URL, Token: tok, HTTP: &http.Client{}}
	if info.Socket != "" {
		c.HTTP, c.BaseURL = socketClient(dir)
	} else if info.TLS {
		tr, err := pinnedTransport(info.TLSFingerprint)
		if err != nil {
			return nil, err
		}
		c.HTTP.Transport = tr
	}
	hctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	h, err := c.hello(hctx)
	var noAnswer *errNoAnswer
	switch {
	case errors.As(err, &noAnswer):
		return nil, fmt.Errorf("%w (the daemon in %s does not answer: %v)", ErrNoDaemon, ServeFile, err)
	case err != nil:
		return nil, fmt.Errorf("the Hearth daemon (pid %d, %s) in %s: %w", info.PID, info.URL, dir, err)
	case h.PID != info.PID:
		return nil, fmt.Errorf("%w (%s answers for pid %d, not %d)", ErrNoDaemon, info.URL, h.PID, info.PID)
	}
	c.PID = info.PID
	c.verified.Store(true)
	if _, err := c.Health(hctx); err != nil {
		return nil, fmt.Errorf("the Hearth daemon (pid %d, %s) serves %s: %w", info.PID, info.URL, dir, err)
	}
	return c, nil
}

// pinnedTransport trusts exactly the certificate whose CertFingerprint is
// fingerprint, the one the daemon loaded: the address clients dial
// (127.0.0.1) need not be a name in it, and it may be self-signed.
func pinnedTransport(fingerprint string) (*http.Transport, error) {
	if len(fingerprint) != 2*sha256.Size {
		return nil, fmt.Errorf("%s has no certificate fingerprint (tls_sha256) to pin: restart hearth serve", ServeFile)
	}
	want := []byte(strings.ToLower(fingerprint))
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{
		// Verification is VerifyConnection's pin below, not the roots.
		InsecureSkipVerify: true, //nolint:gosec
		VerifyConnection: func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 || subtle.ConstantTimeCompare([]byte(CertFingerprint(cs.PeerCertificates[0].Raw)), want) != 1 {
				return errors.New("the daemon's certificate is not the one in its serve.json")
			}
			return nil
		},
	}
	return tr, nil
}
