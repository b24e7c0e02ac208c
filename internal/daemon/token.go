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
// the API token.
const TokenFile = "api-token"

// Token returns the data directory's API token, creating it (32 random
// bytes, base64url, mode 0600) when there is none yet.
func Token(dir string) (string, error) {
	tok, err := readToken(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return tok, err
	}
	tok = newToken()
	path := filepath.Join(dir, TokenFile)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readToken(dir) // another process made it first
	}
	if err != nil {
		return "", fmt.Errorf("creating the API token: %w", err)
	}
	_, err = f.WriteString(tok + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("writing the API token: %w", err)
	}
	return tok, nil
}

// Rotate replaces the data directory's API token with a new one and
// returns it. A running daemon takes it at its next request (see
// TokenSource); the old token stops working then.
func Rotate(dir string) (string, error) {
	tok := newToken()
	if err := writePrivate(filepath.Join(dir, TokenFile), []byte(tok+"\n")); err != nil {
		return "", fmt.Errorf("replacing the API token: %w", err)
	}
	return tok, nil
}

// TokenSource returns a function giving the token in dir's token file as
// it is now: it reads the file again only when it was replaced, so a
// rotation takes effect without a restart. It gives "" (refusing every
// request) while the file is missing or unreadable.
func TokenSource(dir string) func() string { return WatchToken(dir, nil) }

// WatchToken is TokenSource that also calls seen with every token it
// reads: the first, and each one a rotation brings. hearth serve adds them
// to the secrets its logs, traces and events mask. seen runs with the
// source locked, before the token is used: it must not call the source.
func WatchToken(dir string, seen func(tok string)) func() string {
	path := filepath.Join(dir, TokenFile)
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
		t, err := readToken(dir)
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

func readToken(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, TokenFile))
	if err != nil {
		return "", fmt.Errorf("reading the API token: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("the API token file %s is empty: run `hearth token --rotate`", filepath.Join(dir, TokenFile))
	}
	return tok, nil
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
