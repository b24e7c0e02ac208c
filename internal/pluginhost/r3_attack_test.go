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
	"testing"
	"time"
)

// r3: an entry of a type untar skips (here an unknown typeflag) is still
// inflated in full by tar.Reader.Next, but never counted against
// maxUnpackedBytes: a 64 MiB .tar.gz of such entries inflates ~64 GiB.
func TestR3UntarSkippedEntryCountsAgainstCap(t *testing.T) {
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
	err := untar(bytes.NewReader(buf.Bytes()), root)
	if !errors.Is(err, ErrArchive) {
		t.Fatalf("a %d MiB skipped entry (cap %d MiB) was inflated and accepted: %v", size>>20, maxUnpackedBytes>>20, err)
	}
}

// r3: download uses http.DefaultClient (no Timeout) and the CLI's context
// has no deadline: a server that sends headers and then stalls hangs
// `hearth plugin install URL` forever.
func TestR3DownloadStallTimesOut(t *testing.T) {
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
	done := make(chan error, 1)
	go func() {
		_, _, err := Fetch(context.Background(), srv.URL+"/p.tar.gz", filepath.Join(t.TempDir(), "f"), nil)
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(3 * time.Second): // stand-in for "some idle timeout"
		t.Fatal("download of a stalled archive has no idle/overall timeout (http.DefaultClient, ctx without deadline)")
	}
}

// r3: an https archive URL that redirects to plain http is followed: the
// plugin's code then comes over an unauthenticated channel.
func TestR3DownloadRefusesHTTPSToHTTPRedirect(t *testing.T) {
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
}

// r3: a plugin folder installed from a FOLDER keeps a .hearth-source.json it
// ships, so `hearth plugin upgrade ID` fetches from whatever the folder's
// author wrote there instead of saying "installed from a folder".
func TestR3InstallFolderDropsShippedSourceRecord(t *testing.T) {
	src := t.TempDir()
	os.WriteFile(filepath.Join(src, "plugin.json"), []byte(testManifest), 0o644)
	if err := WriteSourceRecord(src, SourceRecord{Source: "https://evil.example/other.tar.gz", Kind: "archive"}); err != nil {
		t.Fatal(err)
	}
	plugins := t.TempDir()
	id, err := InstallFolder(context.Background(), nil, plugins, src)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err := ReadSourceRecord(filepath.Join(plugins, id)); err == nil {
		t.Fatalf("folder install kept the shipped source record: upgrade would fetch %s", rec.Source)
	}
}

// r3: Fetch (reached by `hearth plugin upgrade` with the Source read back
// from .hearth-source.json, a file in the plugin's own folder) does not
// re-check IsFetched: "NAME::ADDR" makes git run git-remote-NAME from PATH,
// and only ext:: is turned off.
func TestR3FetchRefusesWhatIsFetchedRefuses(t *testing.T) {
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

// r3: a private source's token in the URL (https://user:TOKEN@host/...,
// git's usual way) is printed in Fetch's errors (and, by the CLI, in
// "fetched URL", and kept in .hearth-source.json in clear).
func TestR3FetchErrorsHideURLPassword(t *testing.T) {
	for _, src := range []string{"https://u:SECRETTOKEN@127.0.0.1:1/p.tar.gz", "https://u:SECRETTOKEN@127.0.0.1:1/repo.git"} {
		_, _, err := Fetch(context.Background(), src, filepath.Join(t.TempDir(), "f"), nil)
		if err != nil && bytes.Contains([]byte(err.Error()), []byte("SECRETTOKEN")) {
			t.Errorf("%s: the error shows the token: %v", src, err)
		}
	}
}
