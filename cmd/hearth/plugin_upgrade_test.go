package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// gitIn runs git in dir with a fixed identity.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A plugin installed from a git URL (a local bare repository over
// file://) records its source; upgrade fetches the new commit and
// replaces the folder, keeping the plugin's data folder; a folder
// installed from a path cannot be upgraded and says why.
func TestPluginInstallFromGitAndUpgrade(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	src := filepath.Join(work, "greeter")
	os.MkdirAll(src, 0o755)
	os.WriteFile(filepath.Join(src, "plugin.json"), []byte(`{"id": "greeter", "command": ["./run"]}`), 0o644)
	os.WriteFile(filepath.Join(src, "VERSION"), []byte("1"), 0o644)
	gitIn(t, src, "init", "-q", "-b", "main")
	gitIn(t, src, "add", ".")
	gitIn(t, src, "commit", "-q", "-m", "v1")
	bare := filepath.Join(work, "greeter.git")
	gitIn(t, work, "clone", "-q", "--bare", src, bare)
	url := "file://" + bare

	out, errOut, code := hearth(t, env, "", "plugin", "install", url)
	if code != 0 || !strings.Contains(out, "fetched "+url+" at ") || !strings.Contains(out, "installed greeter") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	dst := filepath.Join(home, "plugins", "greeter")
	plugins := filepath.Join(home, "plugins")
	rec, err := pluginhost.ReadSourceRecord(plugins, "greeter")
	if err != nil || rec.Source != url || rec.Kind != "git" || rec.Commit != gitIn(t, src, "rev-parse", "HEAD") {
		t.Fatalf("record %+v %v", rec, err)
	}
	if _, err := os.Stat(filepath.Join(dst, ".git")); err == nil {
		t.Fatal(".git installed")
	}
	data := filepath.Join(home, "plugin_data", "greeter")
	os.MkdirAll(data, 0o700)
	os.WriteFile(filepath.Join(data, "notes"), []byte("kept"), 0o600)

	os.WriteFile(filepath.Join(src, "VERSION"), []byte("2"), 0o644)
	gitIn(t, src, "commit", "-q", "-am", "v2")
	gitIn(t, src, "push", "-q", bare, "main")
	out, errOut, code = hearth(t, env, "", "plugin", "upgrade", "greeter")
	if code != 0 || !strings.Contains(out, "upgraded greeter from "+url) {
		t.Fatalf("upgrade: %d %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "VERSION")); string(b) != "2" {
		t.Fatalf("VERSION %q after the upgrade", b)
	}
	if rec2, _ := pluginhost.ReadSourceRecord(plugins, "greeter"); rec2.Commit != gitIn(t, src, "rev-parse", "HEAD") {
		t.Fatalf("record after the upgrade %+v", rec2)
	}
	if b, _ := os.ReadFile(filepath.Join(data, "notes")); string(b) != "kept" {
		t.Fatalf("data folder: %q", b)
	}

	// A version that asks for more rights is shown and, off a terminal,
	// refused without --yes.
	os.WriteFile(filepath.Join(src, "plugin.json"), []byte(`{"id": "greeter", "command": ["./run"], "capabilities": ["llm"]}`), 0o644)
	os.WriteFile(filepath.Join(src, "VERSION"), []byte("3"), 0o644)
	gitIn(t, src, "commit", "-q", "-am", "v3")
	gitIn(t, src, "push", "-q", bare, "main")
	out, errOut, code = hearth(t, env, "", "plugin", "upgrade", "greeter")
	if code != 1 || !strings.Contains(out, "capabilities: (none) -> llm") || !strings.Contains(errOut, "--yes") {
		t.Fatalf("wider rights without --yes: %d %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "VERSION")); string(b) != "2" {
		t.Fatalf("VERSION %q after a refused upgrade", b)
	}
	if out, errOut, code := hearth(t, env, "", "plugin", "upgrade", "--yes", "greeter"); code != 0 || !strings.Contains(out, "upgraded greeter") {
		t.Fatalf("wider rights with --yes: %d %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "VERSION")); string(b) != "3" {
		t.Fatalf("VERSION %q after an accepted upgrade", b)
	}

	// An upgrade cut short after moving the old folder out is undone at
	// the next run.
	if _, err := pluginhost.SetAside(plugins, "greeter"); err != nil {
		t.Fatal(err)
	}
	if _, errOut, _ := hearth(t, env, "", "plugin", "upgrade", "nope"); !strings.Contains(errOut, "its old folder is back") {
		t.Fatalf("restore: %q", errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "VERSION")); string(b) != "3" {
		t.Fatalf("VERSION %q after the restore", b)
	}

	// A source that now holds another plugin is refused; the old folder stays.
	os.WriteFile(filepath.Join(src, "plugin.json"), []byte(`{"id": "other", "command": ["./run"]}`), 0o644)
	gitIn(t, src, "commit", "-q", "-am", "renamed")
	gitIn(t, src, "push", "-q", bare, "main")
	if _, errOut, code := hearth(t, env, "", "plugin", "upgrade", "greeter"); code != 1 || !strings.Contains(errOut, `holds the plugin "other"`) {
		t.Fatalf("renamed: %d %q", code, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "VERSION")); string(b) != "3" {
		t.Fatalf("VERSION %q after a refused upgrade", b)
	}

	plain := filepath.Join(work, "plain")
	os.MkdirAll(plain, 0o755)
	os.WriteFile(filepath.Join(plain, "plugin.json"), []byte(`{"id": "plain", "command": ["./run"]}`), 0o644)
	if _, errOut, code := hearth(t, env, "", "plugin", "install", plain); code != 0 {
		t.Fatalf("install folder: %q", errOut)
	}
	if _, errOut, code := hearth(t, env, "", "plugin", "upgrade", "plain"); code != 1 || !strings.Contains(errOut, "installed from a folder") {
		t.Fatalf("upgrade of a folder: %d %q", code, errOut)
	}
	if _, errOut, code := hearth(t, env, "", "plugin", "upgrade", "nope"); code != 1 || !strings.Contains(errOut, "no plugin folder") {
		t.Fatalf("upgrade of nothing: %d %q", code, errOut)
	}
}

// A .tar.gz over HTTP installs the plugin in its top folder; one whose
// entry leaves the folder is refused and installs nothing.
func TestPluginInstallFromArchive(t *testing.T) {
	archive := func(name, body string) []byte {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, e := range [][2]string{{"greeter-main/plugin.json", `{"id": "greeter", "command": ["./run"]}`}, {name, body}} {
			tw.WriteHeader(&tar.Header{Name: e[0], Mode: 0o644, Size: int64(len(e[1])), Typeflag: tar.TypeReg})
			tw.Write([]byte(e[1]))
		}
		tw.Close()
		gz.Close()
		return buf.Bytes()
	}
	good, evil := archive("greeter-main/README", "hi"), archive("greeter-main/../../evil", "x")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/evil.tar.gz" {
			w.Write(evil)
			return
		}
		w.Write(good)
	}))
	defer srv.Close()
	home := t.TempDir()
	env := []string{"HEARTH_HOME=" + home}
	if _, errOut, code := hearth(t, env, "", "plugin", "install", srv.URL+"/evil.tar.gz"); code != 1 || !strings.Contains(errOut, "leaves the folder") {
		t.Fatalf("evil: %d %q", code, errOut)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "plugins")); len(entries) != 0 {
		t.Fatalf("installed: %v", entries)
	}
	out, errOut, code := hearth(t, env, "", "plugin", "install", srv.URL+"/greeter.tar.gz")
	if code != 0 || !strings.Contains(out, "installed greeter") {
		t.Fatalf("install: %d %q %q", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(home, "plugins", "greeter", "README")); string(b) != "hi" {
		t.Fatalf("README %q", b)
	}
	if rec, err := pluginhost.ReadSourceRecord(filepath.Join(home, "plugins"), "greeter"); err != nil || rec.Kind != "archive" {
		t.Fatalf("record %+v %v", rec, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(home, "fetched")); len(entries) != 0 {
		t.Fatalf("fetched left behind: %v", entries)
	}
}
