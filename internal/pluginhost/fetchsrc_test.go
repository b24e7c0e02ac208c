package pluginhost

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// entry is one entry of a test archive.
type entry struct {
	name, body, link string
	dir, hard        bool
}

const testManifest = `{"id": "fetched", "command": ["true"]}`

func tarGz(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		switch {
		case e.dir:
			h.Typeflag, h.Mode, h.Size = tar.TypeDir, 0o755, 0
		case e.link != "" && e.hard:
			h.Typeflag, h.Linkname, h.Size = tar.TypeLink, e.link, 0
		case e.link != "":
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.link, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if h.Size > 0 {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func zipOf(t testing.TB, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		body := e.body
		switch {
		case e.dir:
			h.Name = strings.TrimSuffix(e.name, "/") + "/"
			h.SetMode(os.ModeDir | 0o755)
		case e.link != "":
			h.SetMode(os.ModeSymlink | 0o777)
			body = e.link
		default:
			h.SetMode(0o644)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(body))
	}
	zw.Close()
	return buf.Bytes()
}

func writeFetchFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A plugin in a git repository is cloned at depth 1 over file:// (as over
// https), without its .git folder, and its commit recorded.
func TestFetchGit(t *testing.T) {
	work := t.TempDir()
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	src := filepath.Join(work, "plugin")
	os.MkdirAll(src, 0o755)
	writeFetchFile(t, filepath.Join(src, ManifestFile), []byte(testManifest))
	git(src, "init", "-q", "-b", "main")
	git(src, "add", ".")
	git(src, "commit", "-q", "-m", "first")
	commit := git(src, "rev-parse", "HEAD")
	bare := filepath.Join(work, "plugin.git")
	git(work, "clone", "-q", "--bare", src, bare)

	dir, rec, err := Fetch(context.Background(), "file://"+bare, filepath.Join(t.TempDir(), "f"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := LoadManifest(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf(".git kept: %v", err)
	}
	if rec.Kind != "git" || rec.Commit != commit || rec.Source != "file://"+bare {
		t.Fatalf("record %+v", rec)
	}
	if _, _, err := Fetch(context.Background(), "file://"+filepath.Join(work, "nope.git"), filepath.Join(t.TempDir(), "f"), nil); err == nil ||
		!strings.Contains(err.Error(), "git clone") {
		t.Fatalf("missing repository: %v", err)
	}
}

// Archives over HTTP and from a file: a forge's single top folder is
// stepped into.
func TestFetchArchive(t *testing.T) {
	files := []entry{{name: "weather-main/", dir: true}, {name: "weather-main/plugin.json", body: testManifest},
		{name: "weather-main/lib/x.js", body: "x"}, {name: "weather-main/lib/self", link: "x.js"}}
	tgz, zp := tarGz(t, files...), zipOf(t, files...)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/p.tar.gz":
			w.Write(tgz)
		case "/p.zip":
			w.Write(zp)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	local := writeFetchFile(t, filepath.Join(t.TempDir(), "p.zip"), zp)
	for _, src := range []string{srv.URL + "/p.tar.gz", srv.URL + "/p.zip?download=1", local} {
		dir, rec, err := Fetch(context.Background(), src, filepath.Join(t.TempDir(), "f"), srv.Client())
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if filepath.Base(dir) != "weather-main" || rec.Kind != "archive" || rec.Source != src {
			t.Fatalf("%s: %s %+v", src, dir, rec)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "lib", "x.js")); err != nil || string(b) != "x" {
			t.Fatalf("%s: %q %v", src, b, err)
		}
		if _, err := os.Lstat(filepath.Join(dir, "lib", "self")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("%s: a link was unpacked: %v", src, err)
		}
	}
	if _, _, err := Fetch(context.Background(), srv.URL+"/gone.tar.gz", filepath.Join(t.TempDir(), "f"), srv.Client()); err == nil || !strings.Contains(err.Error(), "404") {
		t.Fatalf("404: %v", err)
	}
}

// Entries that leave the folder, links out of it and archives over the
// limits are refused, and nothing is written outside the fetch folder.
func TestFetchArchiveRefused(t *testing.T) {
	defer func(a, u int64) { maxArchiveBytes, maxUnpackedBytes = a, u }(maxArchiveBytes, maxUnpackedBytes)
	maxArchiveBytes, maxUnpackedBytes = 4096, 1000
	big := strings.Repeat("x", 1001)
	man := entry{name: "p/plugin.json", body: testManifest}
	for _, tc := range []struct {
		name, want string
		tgz        []byte
	}{
		{"dot-dot", "leaves the folder", tarGz(t, man, entry{name: "p/../../evil", body: "x"})},
		{"absolute", "leaves the folder", tarGz(t, man, entry{name: "/tmp/evil", body: "x"})},
		{"symlink out", "points out", tarGz(t, man, entry{name: "p/passwd", link: "../../etc/passwd"})},
		{"absolute symlink", "points out", tarGz(t, man, entry{name: "p/passwd", link: "/etc/passwd"})},
		{"hard link out", "points out", tarGz(t, man, entry{name: "p/h", link: "../../x", hard: true})},
		{"unpacks too big", "more than", tarGz(t, man, entry{name: "p/big", body: big})},
		{"not an archive", "not a .tar.gz", []byte("<html>")},
		{"zip dot-dot", "leaves the folder", zipOf(t, man, entry{name: "../evil", body: "x"})},
		{"zip symlink out", "points out", zipOf(t, man, entry{name: "p/l", link: "../../../x"})},
		{"archive too big", "is over", bytes.Repeat([]byte{0}, 4097)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ext := ".tar.gz"
			if strings.HasPrefix(tc.name, "zip") {
				ext = ".zip"
			}
			work := t.TempDir()
			file := writeFetchFile(t, filepath.Join(work, "a"+ext), tc.tgz)
			_, _, err := Fetch(context.Background(), file, filepath.Join(work, "fetch"), nil)
			if !errors.Is(err, ErrArchive) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v", err)
			}
			if entries, _ := os.ReadDir(work); len(entries) != 1 {
				t.Fatalf("written beside: %v", entries)
			}
		})
	}
	// A download over the limit stops there.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Repeat([]byte{0}, 8192))
	}))
	defer srv.Close()
	if _, _, err := Fetch(context.Background(), srv.URL+"/a.tar.gz", filepath.Join(t.TempDir(), "f"), srv.Client()); !errors.Is(err, ErrArchive) {
		t.Fatalf("big download: %v", err)
	}
}

// A source record lives in the data directory, not in the plugin folder;
// one an older Hearth left in the folder is moved out once; a bad one is
// refused.
func TestSourceRecord(t *testing.T) {
	plugins := filepath.Join(t.TempDir(), "plugins")
	os.MkdirAll(filepath.Join(plugins, "p"), 0o700)
	rec := SourceRecord{Source: "https://example.com/p.git", Kind: "git", Commit: "abc"}
	if err := WriteSourceRecord(plugins, "p", rec); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSourceRecord(plugins, "p")
	if err != nil || got.Source != rec.Source || got.Commit != "abc" {
		t.Fatalf("%+v %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(plugins), SourceDir, "p.json")); err != nil {
		t.Fatalf("the record is not in the data directory: %v", err)
	}
	writeFetchFile(t, SourceRecordFile(plugins, "p"), []byte(`{"source": "x", "kind": "ftp"}`))
	if _, err := ReadSourceRecord(plugins, "p"); err == nil {
		t.Fatal("a bad record was read")
	}

	os.MkdirAll(filepath.Join(plugins, "old"), 0o700)
	legacy := filepath.Join(plugins, "old", LegacySourceFile)
	writeFetchFile(t, legacy, []byte(`{"source": "https://example.com/old.git", "kind": "git"}`))
	if got, err := ReadSourceRecord(plugins, "old"); err != nil || got.Source != "https://example.com/old.git" {
		t.Fatalf("legacy record: %+v %v", got, err)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the legacy record stayed in the folder: %v", err)
	}
	if got, err := ReadSourceRecord(plugins, "old"); err != nil || got.Source != "https://example.com/old.git" {
		t.Fatalf("migrated record: %+v %v", got, err)
	}
	if _, err := ReadSourceRecord(plugins, "none"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("no record: %v", err)
	}
}

// FuzzSourceRecord reads any bytes as a source record: it never panics,
// and what it accepts has a source and a known kind.
func FuzzSourceRecord(f *testing.F) {
	f.Add([]byte(`{"source": "https://example.com/p.git", "kind": "git"}`))
	f.Add([]byte(`{"source": "x", "kind": "ftp"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		file := filepath.Join(t.TempDir(), "r.json")
		os.WriteFile(file, b, 0o600)
		rec, err := readSourceRecord(file)
		if err == nil && (rec.Source == "" || (rec.Kind != "git" && rec.Kind != "archive")) {
			t.Fatalf("accepted %+v", rec)
		}
	})
}

// FuzzUntar unpacks any bytes as a .tar.gz: it never panics and never
// writes outside its folder.
func FuzzUntar(f *testing.F) {
	f.Add(tarGz(f, entry{name: "p/plugin.json", body: testManifest}))
	f.Add(tarGz(f, entry{name: "../x", body: "x"}))
	f.Add(tarGz(f, entry{name: "a", link: "../b"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		work := t.TempDir()
		root := filepath.Join(work, "root")
		os.Mkdir(root, 0o700)
		_ = untar(context.Background(), bytes.NewReader(b), root)
		entries, _ := os.ReadDir(work)
		if len(entries) != 1 {
			t.Fatalf("written beside the folder: %v", entries)
		}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.Type()&os.ModeSymlink != 0 {
				t.Fatalf("a link was unpacked: %s", p)
			}
			return nil
		})
	})
}
