package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-agent/hearth/internal/names"
	"github.com/hearth-agent/hearth/internal/scaffold"
	"github.com/hearth-agent/hearth/sdk"
)

const pluginNewUsage = `usage: hearth plugin new NAME [--lang go|ts|python] [--dir DIR] [--hearth-src DIR]

Writes a plugin (default --lang ts) that runs at once into DIR (default
./NAME): plugin.json, a tool named hello, a test and a README. Then, in
DIR:

  ts:      node --test && hearth plugin install .
  python:  python3 -m unittest && hearth plugin install .
  go:      go test ./... && go build && hearth plugin install .

A Go plugin's go.mod replaces the Hearth module (not on the Go proxy)
with a Hearth checkout: --hearth-src, else the checkout found above the
current folder, DIR or this hearth binary, else the one it was built from.

Examples:
  hearth plugin new greeter --lang python
  hearth plugin new my-tools --lang ts --dir ~/src/my-tools
  hearth plugin new gotools --lang go --hearth-src ~/src/hearth
`

// runPluginNew is `hearth plugin new`: it needs no data folder and no
// running Hearth.
func runPluginNew(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("plugin new", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	lang := fs.String("lang", "ts", "go, ts or python")
	dir := fs.String("dir", "", "the folder to write (default ./NAME)")
	src := fs.String("hearth-src", "", "a Hearth checkout, for a Go plugin's go.mod replace")
	var names []string
	for rest := args; ; {
		if err := fs.Parse(rest); err != nil {
			if err == flag.ErrHelp {
				fmt.Fprint(stdout, pluginNewUsage)
				return 0
			}
			fmt.Fprintf(stderr, "hearth plugin new: %v\n\n%s", err, pluginNewUsage)
			return 2
		}
		if fs.NArg() == 0 {
			break
		}
		names, rest = append(names, fs.Arg(0)), fs.Args()[1:]
	}
	if len(names) != 1 {
		fmt.Fprintf(stderr, "hearth plugin new: name one plugin\n\n%s", pluginNewUsage)
		return 2
	}
	if err := checkNewID(names[0], *lang); err != nil {
		fmt.Fprintf(stderr, "hearth plugin new: %v\n", err)
		return 2
	}
	o := scaffold.Options{ID: names[0], Lang: *lang, Dir: *dir, HearthSrc: *src}
	if o.Dir == "" {
		o.Dir = o.ID
	}
	if o.HearthSrc == "" {
		cwd, _ := os.Getwd()
		exe, _ := os.Executable()
		o.HearthSrc = scaffold.FindHearthSrc(cwd, o.Dir, filepath.Dir(exe), scaffold.BuiltFrom())
	}
	files, err := scaffold.New(o)
	if err != nil {
		fmt.Fprintf(stderr, "hearth plugin new: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote plugin %s in %s (已创建插件): %s\n", o.ID, o.Dir, strings.Join(files, ", "))
	fmt.Fprintf(stdout, "next, in %s:\n  %s\n", o.Dir, nextSteps(*lang))
	return 0
}

// checkNewID refuses, as a usage error, an id no plugin may have or one
// of Hearth's built-in plugins holds (the new plugin would never load),
// and a language the scaffold does not write.
func checkNewID(id, lang string) error {
	if !names.ValidID(id) {
		return fmt.Errorf("plugin id %q must be %s", id, names.IDRule)
	}
	if names.IsReserved(id) {
		return fmt.Errorf("plugin id %q is reserved for Hearth itself; pick another", id)
	}
	if _, ok := sdk.Factory(id); ok {
		return fmt.Errorf("plugin id %q is taken by Hearth's built-in plugin %s; pick another", id, id)
	}
	_, err := scaffold.NormLang(lang)
	return err
}

func nextSteps(lang string) string {
	switch strings.ToLower(lang) {
	case "go", "golang":
		return "go test ./... && go build && hearth plugin install ."
	case "python", "py", "python3":
		return "python3 -m unittest && hearth plugin install ."
	}
	return "node --test && hearth plugin install ."
}
