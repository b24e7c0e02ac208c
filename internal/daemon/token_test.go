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
