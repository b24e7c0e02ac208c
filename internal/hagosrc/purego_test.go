package hagosrc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A source folder's .S file with .incbin (with a cgo file to pull it in)
// would copy any file the user can read into the plugin program at
// install; Build refuses the folder before the toolchain runs.
func TestBuildReadsNoFileOutsideTheSourceFolder(t *testing.T) {
	src := copyDir(t, "testdata/ha_notes")
	secret := filepath.Join(t.TempDir(), "owner-secret.txt")
	if err := os.WriteFile(secret, []byte("OWNER-SECRET-7f3a9c"), 0o600); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"zz_cgo.go": "package main\n\n// extern const char stolen[];\nimport \"C\"\n\nvar _ = C.stolen\n",
		"steal.S":   ".section .rodata\n.global stolen\nstolen:\n.incbin \"" + secret + "\"\n.byte 0\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(src, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	_, err := Build(context.Background(), Options{Src: src, Out: out, HearthSrc: hearthSrc(t)})
	if !errors.Is(err, ErrNotPureGo) {
		t.Fatalf("got %v, want ErrNotPureGo", err)
	}
	if _, serr := os.Stat(filepath.Join(out, "plugin", exeName("ha_notes"))); serr == nil {
		t.Fatal("a program was built")
	}
}

func TestBuildRefusesNonGoSources(t *testing.T) {
	for _, c := range []struct{ file, body, want string }{
		{"steal.S", ".incbin \"/etc/hostname\"\n", "steal.S is a C, C++ or assembly file"},
		{"asm_amd64.s", "#include \"/etc/hostname\"\n", "asm_amd64.s is a C"},
		{"x.sx", "", "x.sx"},
		{"x.c", "#include \"/etc/hostname\"\n", "x.c"},
		{"x.cpp", "", "x.cpp"},
		{"x.h", "", "x.h"},
		{"blob_amd64.syso", "", "blob_amd64.syso"},
		{"sub/x.cc", "", filepath.Join("sub", "x.cc")},
		{"cgo.go", "package main\n\n/*\n#include \"/etc/hostname\"\n*/\nimport \"C\"\n", "cgo.go uses cgo"},
		{"sub/cgo.go", "package sub\n\nimport \"C\"\n", filepath.Join("sub", "cgo.go") + " uses cgo"},
	} {
		t.Run(c.file, func(t *testing.T) {
			src := copyDir(t, "testdata/ha_notes")
			path := filepath.Join(src, c.file)
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, []byte(c.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t)})
			if !errors.Is(err, ErrNotPureGo) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want ErrNotPureGo naming %q", err, c.want)
			}
		})
	}
}

func TestBuildRefusesSymlinks(t *testing.T) {
	src := copyDir(t, "testdata/ha_notes")
	if err := os.Symlink("/etc/hostname", filepath.Join(src, "hostname.go")); err != nil {
		t.Fatal(err)
	}
	_, err := Build(context.Background(), Options{Src: src, Out: t.TempDir(), HearthSrc: hearthSrc(t)})
	if !errors.Is(err, ErrNotPureGo) || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("got %v", err)
	}
}

// Folders go build never reads are not looked at: a plugin's notes or a
// vendored C project under testdata or a hidden folder stay allowed.
func TestCheckPureGoSkipsUnbuiltFolders(t *testing.T) {
	src := copyDir(t, "testdata/ha_notes")
	for _, f := range []string{".git/x.c", "testdata/x.S", "_old/x.c", "dist/x.syso"} {
		path := filepath.Join(src, f)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := checkPureGo(src); err != nil {
		t.Fatal(err)
	}
}

// cgo stays off whatever the caller's environment says.
func TestBuildEnvTurnsCgoOff(t *testing.T) {
	env := buildEnv([]string{"PATH=/bin", "CGO_ENABLED=1"})
	if !slices.Contains(env, "CGO_ENABLED=0") || slices.Contains(env, "CGO_ENABLED=1") {
		t.Fatalf("env %v", env)
	}
}
