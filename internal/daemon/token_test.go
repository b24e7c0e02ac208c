package daemon

import (
	"os"
	"path/filepath"
	"testing"
)

func TestTokenIsCreatedOnceAndPrivate(t *testing.T) {
	dir := t.TempDir()
	tok, err := Token(dir)
	if err != nil || len(tok) < 40 {
		t.Fatalf("token %q, %v", tok, err)
	}
	fi, err := os.Stat(filepath.Join(dir, TokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", fi, err)
	}
	if again, err := Token(dir); err != nil || again != tok {
		t.Fatalf("second Token %q, %v; want the first", again, err)
	}
}

func TestRotateReplacesTheToken(t *testing.T) {
	dir := t.TempDir()
	src := TokenSource(dir)
	if got := src(); got != "" {
		t.Fatalf("source before any token: %q", got)
	}
	old, _ := Token(dir)
	if got := src(); got != old {
		t.Fatalf("source %q, want %q", got, old)
	}
	tok, err := Rotate(dir)
	if err != nil || tok == old {
		t.Fatalf("rotate: %q, %v", tok, err)
	}
	if got, _ := Token(dir); got != tok {
		t.Fatalf("Token after rotate %q, want %q", got, tok)
	}
	if got := src(); got != tok {
		t.Fatalf("source after rotate %q, want %q", got, tok)
	}
	fi, _ := os.Stat(filepath.Join(dir, TokenFile))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("rotated token file mode %04o", fi.Mode().Perm())
	}
	os.Remove(filepath.Join(dir, TokenFile))
	if got := src(); got != "" {
		t.Fatalf("source with the file gone: %q", got)
	}
}

func TestEmptyTokenFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, TokenFile), []byte("\n"), 0o600)
	if _, err := Token(dir); err == nil {
		t.Fatal("an empty token file gave a token")
	}
}

// The client token is a file of its own: made on demand, private,
// replaced without touching the API token, and its source gives "" until
// it exists (no OpenAI client is let in before `hearth token --openai`).
func TestClientTokenIsSeparateAndRotatesAlone(t *testing.T) {
	dir := t.TempDir()
	src := ClientTokenSource(dir)
	main, err := Token(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := src(); got != "" {
		t.Fatalf("client source before the client token exists: %q", got)
	}
	tok, err := ClientToken(dir)
	if err != nil || len(tok) < 40 || tok == main {
		t.Fatalf("client token %q, %v (API token %q)", tok, err, main)
	}
	fi, err := os.Stat(filepath.Join(dir, ClientTokenFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("client token file: %v, %v", fi, err)
	}
	if again, _ := ClientToken(dir); again != tok {
		t.Fatalf("second ClientToken %q, want %q", again, tok)
	}
	if got := src(); got != tok {
		t.Fatalf("client source %q, want %q", got, tok)
	}
	rotated, err := RotateClient(dir)
	if err != nil || rotated == tok {
		t.Fatalf("rotate client: %q, %v", rotated, err)
	}
	if got := src(); got != rotated {
		t.Fatalf("client source after rotation %q, want %q", got, rotated)
	}
	if got, _ := Token(dir); got != main {
		t.Fatalf("rotating the client token changed the API token: %q, want %q", got, main)
	}
	if got := TokenSource(dir)(); got != main {
		t.Fatalf("API token source %q, want %q", got, main)
	}
	fi, _ = os.Stat(filepath.Join(dir, ClientTokenFile))
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("rotated client token file mode %04o", fi.Mode().Perm())
	}
}
