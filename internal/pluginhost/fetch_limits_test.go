package pluginhost

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An entry of a type untar skips (here an unknown typeflag) is still
// inflated in full by tar.Reader.Next, so it counts against
// maxUnpackedBytes: else a 64 MiB .tar.gz of such entries inflates ~64 GiB.
func TestUntarSkippedEntryCountsAgainstCap(t *testing.T) {
	defer func(u int64) { maxUnpackedBytes = u }(maxUnpackedBytes)
	maxUnpackedBytes = 1 << 20
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	size := int64(16 << 20)
	if err := tw.WriteHeader(&tar.Header{Name: "pad", Typeflag: '9', Size: size, Mode: 0o644}); err != nil {
		t.Fatal(err)
	}
	tw.Write(make([]byte, size))
	tw.WriteHeader(&tar.Header{Name: "plugin.json", Typeflag: tar.TypeReg, Size: int64(len(testManifest)), Mode: 0o644})
	tw.Write([]byte(testManifest))
	tw.Close()
	gz.Close()
	root := t.TempDir()
	err := untar(context.Background(), bytes.NewReader(buf.Bytes()), root)
	if !errors.Is(err, ErrArchive) {
		t.Fatalf("a %d MiB skipped entry (cap %d MiB) was inflated and accepted: %v", size>>20, maxUnpackedBytes>>20, err)
	}
}

// A server that sends headers and then stalls is given up after the idle
// timeout (Fetch's own client; the CLI's context has no deadline).
func TestDownloadStallTimesOut(t *testing.T) {
	defer func(d time.Duration) { fetchIdle = d }(fetchIdle)
	fetchIdle = 50 * time.Millisecond
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		w.WriteHeader(200)
		w.Write([]byte("x"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	_, _, err := Fetch(context.Background(), srv.URL+"/p.tar.gz", filepath.Join(t.TempDir(), "f"), nil)
	if !errors.Is(err, ErrStalled) {
		t.Fatalf("a stalled download: %v", err)
	}
}

// An https archive URL that redirects to plain http is refused: the
// plugin's code would come over an unauthenticated channel.
func TestDownloadRefusesHTTPSToHTTPRedirect(t *testing.T) {
	tgz := tarGz(t, entry{name: "plugin.json", body: testManifest})
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(tgz) }))
	defer plain.Close()
	tlsSrv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/p.tar.gz", http.StatusFound)
	}))
	defer tlsSrv.Close()
	_, _, err := Fetch(context.Background(), tlsSrv.URL+"/p.tar.gz", filepath.Join(t.TempDir(), "f"), tlsSrv.Client())
	if err == nil {
		t.Fatal("https → http redirect followed: archive fetched over plain http")
	}
	// More than five hops are refused too.
	var hops *httptest.Server
	hops = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, hops.URL+r.URL.Path+"x", http.StatusFound)
	}))
	defer hops.Close()
	if _, _, err := Fetch(context.Background(), hops.URL+"/p.tar.gz", filepath.Join(t.TempDir(), "f"), nil); err == nil || !strings.Contains(err.Error(), "redirects") {
		t.Fatalf("endless redirects: %v", err)
	}
}

// A plugin folder installed from a folder does not keep a
// .hearth-source.json it ships (else `hearth plugin upgrade ID` would fetch
// from whatever the folder's author wrote there), and a record left for
// its id is forgotten.
func TestInstallFolderDropsShippedSourceRecord(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "plugin.json"), []byte(testManifest), 0o644)
	os.WriteFile(filepath.Join(src, LegacySourceFile), []byte(`{"source": "https://evil.example/other.tar.gz", "kind": "archive"}`), 0o600)
	plugins := filepath.Join(t.TempDir(), "plugins")
	os.Mkdir(plugins, 0o700)
	// A record left from a plugin of the same id fetched before goes too.
	if err := WriteSourceRecord(plugins, "test", SourceRecord{Source: "https://example.com/t.git", Kind: "git"}); err != nil {
		t.Fatal(err)
	}
	id, err := InstallFolder(context.Background(), nil, plugins, src)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := ReadSourceRecord(plugins, id); err == nil {
		t.Fatalf("folder install kept the shipped source record: upgrade would fetch %s", rec.Source)
	}
}

// Fetch (reached by `hearth plugin upgrade` with a recorded source)
// refuses what IsFetched refuses: "NAME::ADDR" would make git run
// git-remote-NAME from PATH.
func TestFetchRefusesWhatIsFetchedRefuses(t *testing.T) {
	bin := t.TempDir()
	mark := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(bin, "git-remote-r3"), []byte("#!/bin/sh\ntouch "+mark+"\nexit 1\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	src := "r3::anything"
	if IsFetched(src) {
		t.Fatal("precondition")
	}
	Fetch(context.Background(), src, filepath.Join(t.TempDir(), "f"), nil)
	if _, err := os.Stat(mark); err == nil {
		t.Fatalf("Fetch(%q) ran git-remote-r3: a source record can name any remote helper", src)
	}
}

// A URL with a password (https://user:TOKEN@host/...) is refused, and
// the refusal does not show it.
func TestFetchErrorsHideURLPassword(t *testing.T) {
	for _, src := range []string{"https://u:SECRETTOKEN@127.0.0.1:1/p.tar.gz", "https://u:SECRETTOKEN@127.0.0.1:1/repo.git"} {
		_, _, err := Fetch(context.Background(), src, filepath.Join(t.TempDir(), "f"), nil)
		if err == nil || bytes.Contains([]byte(err.Error()), []byte("SECRETTOKEN")) || !strings.Contains(err.Error(), "credential helper") {
			t.Errorf("%s: a URL with a password is not refused, or the error shows it: %v", src, err)
		}
	}
}
