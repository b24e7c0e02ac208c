package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/hagosrc"
	"github.com/hearth-agent/hearth/internal/pluginhost"
	"github.com/hearth-agent/hearth/internal/scaffold"
)

// installSource builds a HomeAgent Go source folder (see package hagosrc)
// in <data dir>/build and installs the result. Installing the same folder
// again rebuilds it when its files changed, and does nothing otherwise.
// A non-empty id replaces plg.json's name as the plugin's id.
func installSource(ctx context.Context, a *app.App, cio *cmdIO, src, id string) error {
	plg, err := hagosrc.ReadPlg(src)
	if err != nil {
		return err
	}
	if id != "" {
		plg.Name = id
	}
	if rel, err := filepath.Rel(a.Plugins.Dir(), src); err == nil && !strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is inside the plugins folder: move the source folder out of %s, then install it from there", src, a.Plugins.Dir())
	}
	dst := filepath.Join(a.Plugins.Dir(), plg.Name)
	if rec, err := hagosrc.ReadRecord(dst); err == nil && rec.Source == src {
		if digest, err := hagosrc.Digest(src); err == nil && digest == rec.Digest {
			fmt.Fprintf(cio.out, "%s is installed from %s and up to date (change the source and install again to rebuild)\n", plg.Name, src)
			return nil
		}
	}
	root := filepath.Join(a.DataDir, "build")
	if err := os.MkdirAll(root, 0o700); err != nil {
		return err
	}
	out, err := os.MkdirTemp(root, plg.Name+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(out)
	exe, _ := os.Executable()
	fmt.Fprintf(cio.err, "building %s with Go (the first build takes a minute)...\n", plg.Name)
	res, err := hagosrc.Build(ctx, hagosrc.Options{Src: src, Out: out, ID: id,
		HearthSrc: scaffold.FindHearthSrc(cio.cwd, src, filepath.Dir(exe), scaffold.BuiltFrom())})
	if err != nil {
		return fmt.Errorf("building %s: %w", src, err)
	}
	groups := "core"
	if len(res.Capabilities) > 0 {
		groups += "," + strings.Join(res.Capabilities, ",")
	}
	fmt.Fprintf(cio.out, "built HomeAgent plugin %s from %s (calls %s; may use %s)\n", res.ID, src, res.Factory, groups)
	install := func(ctx context.Context, built string) (string, bool, error) {
		return pluginhost.InstallBuilt(ctx, a.Store, a.Plugins.Dir(), built)
	}
	if cio.daemon {
		install = a.Plugins.InstallBuilt
	}
	id, replaced, err := install(ctx, res.Dir)
	if err != nil {
		return err
	}
	if replaced {
		fmt.Fprintf(cio.out, "reinstalled %s into %s; a running Hearth restarts it\n", id, dst)
	} else {
		fmt.Fprintf(cio.out, "installed %s into %s\n", id, dst)
	}
	return nil
}
