// Package daemon is what `hearth serve` and the commands that talk to it
// share: the API token file, the serve.json discovery file, Find, which
// tells whether a daemon owns a data directory, and the Client that calls
// its HTTP API (docs/http-api.md).
package daemon

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// TokenFile is the name, inside the data directory, of the file holding
// the API token: the owner's key to the whole API, as good as a shell
// as the owner.
const TokenFile = "api-token"

// ClientTokenFile is the name, inside the data directory, of the file
// holding the client token: the one to give an OpenAI client. It reaches
// only GET /v1/models, GET /v1/models/{id} and POST /v1/chat/completions,
// and is replaced apart from the API token.
const ClientTokenFile = "api-token-openai"

// Token returns the data directory's API token, creating it (32 random
// bytes, base64url, mode 0600) when there is none yet.
func Token(dir string) (string, error) { return ensureToken(dir, TokenFile) }

// ClientToken returns the data directory's client token (see
// ClientTokenFile), creating it as Token does when there is none yet.
func ClientToken(dir string) (string, error) { return ensureToken(dir, ClientTokenFile) }

// Rotate replaces the data directory's API token with a new one and
// returns it. A running daemon takes it at its next request (see
// TokenSource); the old token stops working then.
func Rotate(dir string) (string, error) { return rotateToken(dir, TokenFile) }

// RotateClient replaces the data directory's client token with a new one
// and returns it; the old one stops working at a running daemon's next
// request (see ClientTokenSource).
func RotateClient(dir string) (string, error) { return rotateToken(dir, ClientTokenFile) }

// TokenSource returns a function giving the token in dir's token file as
// it is now: it reads the file again only when it was replaced, so a
// rotation takes effect without a restart. It gives "" (refusing every
// request) while the file is missing or unreadable.
func TokenSource(dir string) func() string { return WatchToken(dir, nil) }

// ClientTokenSource is TokenSource for the client token: "" (no client
// is let in) until `hearth token --openai` makes it.
func ClientTokenSource(dir string) func() string { return WatchClientToken(dir, nil) }

func ensureToken(dir, name string) (string, error) {
	tok, err := readTokenFile(dir, name)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	tok = newToken()
	path := filepath.Join(dir, name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readTokenFile(dir, name) // another process made it first
	}
	if err != nil {
		return "", fmt.Errorf("creating %s: %w", what(name), err)
	}
	_, err = f.WriteString(tok + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("writing %s: %w", what(name), err)
	}
	return tok, nil
}

func rotateToken(dir, name string) (string, error) {
	tok := newToken()
	if err := writePrivate(filepath.Join(dir, name), []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("replacing %s: %w", what(name), err)
	}
	return tok, nil
}

// WatchToken is TokenSource that also calls seen with every token it
// reads: the first, and each one a rotation brings. hearth serve adds them
// to the secrets its logs, traces and events mask. seen runs with the
// source locked, before the token is used: it must not call the source.
func WatchToken(dir string, seen func(tok string)) func() string {
	return watchTokenFile(dir, TokenFile, seen)
}

// WatchClientToken is WatchToken for the client token.
func WatchClientToken(dir string, seen func(tok string)) func() string {
	return watchTokenFile(dir, ClientTokenFile, seen)
}

func watchTokenFile(dir, name string, seen func(tok string)) func() string {
	path := filepath.Join(dir, name)
	var (
		mu   sync.Mutex
		last fs.FileInfo
		tok  string
	)
	return func() string {
		fi, err := os.Stat(path)
		if err != nil {
			return ""
		}
		mu.Lock()
		defer mu.Unlock()
		if last != nil && os.SameFile(last, fi) && fi.ModTime().Equal(last.ModTime()) && fi.Size() == last.Size() {
			return tok
		}
		t, err := readTokenFile(dir, name)
		if err != nil {
			return ""
		}
		if seen != nil && t != tok {
			seen(t)
		}
		last, tok = fi, t
		return tok
	}
}

// readToken reads the API token (discovery.go's Find sends it).
func readToken(dir string) (string, error) { return readTokenFile(dir, TokenFile) }

func readTokenFile(dir, name string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("reading %s: %w", what(name), err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		fix := "hearth token --rotate"
		if name == ClientTokenFile {
			fix = "hearth token --openai --rotate"
		}
		return "", fmt.Errorf("the token file %s is empty: run `%s`", filepath.Join(dir, name), fix)
	}
	return tok, nil
}

// what names the token in file name for an error message.
func what(name string) string {
	if name == ClientTokenFile {
		return "the OpenAI client token"
	}
	return "the API token"
}

func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return base64.RawURLEncoding.EncodeToString(b)
}

// writePrivate writes b to path (0600) through a temporary file renamed
// over it, so a reader sees the old content or the new, never a part.
func writePrivate(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o600) // CreateTemp makes 0600; be explicit
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
