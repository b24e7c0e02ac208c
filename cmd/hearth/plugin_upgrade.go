package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-agent/hearth/internal/app"
	"github.com/hearth-agent/hearth/internal/hagosrc"
	"github.com/hearth-agent/hearth/internal/pluginhost"
)

// Plugins from a git URL or an archive: `hearth plugin install URL`
// fetches the source (pluginhost.Fetch) and installs the folder it holds
// as `hearth plugin install FOLDER` does, then records the source in the
// data directory (pluginhost.WriteSourceRecord, never in the plugin's own
// folder); `hearth plugin upgrade ID` fetches it again and replaces the
// folder, after the owner agrees to any new rights the new plugin.json
// asks for (pluginhost.RightsChanges; off a terminal, --yes). The
// plugin's settings, secrets, storage and data folder are kept: they
// belong to its name, not to its folder's files.

// fetchDir is where source src is fetched to: the same folder for the
// same source, so a HomeAgent source folder is rebuilt in place.
func fetchDir(a *app.App, src string) string {
	sum := sha256.Sum256([]byte(src))
	return filepath.Join(a.DataDir, "fetched", hex.EncodeToString(sum[:8]))
}

// fetchSource fetches src (a local archive's path taken from the
// client's working directory) and says so, showing src without a
// password.
func fetchSource(ctx context.Context, a *app.App, cio *cmdIO, src string) (dir, tmp string, rec pluginhost.SourceRecord, err error) {
	if !strings.Contains(src, "://") && !strings.HasPrefix(src, "git@") {
		src = cio.abs(src)
	}
	shown := pluginhost.Redact(src)
	tmp = fetchDir(a, src)
	dir, rec, err = pluginhost.Fetch(ctx, src, tmp, nil)
	if err != nil {
		return "", "", rec, fmt.Errorf("fetching %s: %w\n获取 %s 失败：请检查地址（git 仓库或 .tar.gz/.tgz/.zip 压缩包）和网络", shown, err, shown)
	}
	at := ""
	if rec.Commit != "" {
		at = " at " + rec.Commit[:min(12, len(rec.Commit))]
	}
	fmt.Fprintf(cio.out, "fetched %s%s\n", shown, at)
	return dir, tmp, rec, nil
}

// restoreUpgrades puts back plugin folders an upgrade cut short left
// aside, and says so.
func restoreUpgrades(a *app.App, cio *cmdIO) {
	back, err := pluginhost.RestoreUpgrades(a.Plugins.Dir())
	for _, id := range back {
		fmt.Fprintf(cio.err, "hearth plugin: an upgrade of %s was cut short: its old folder is back\n", id)
	}
	if err != nil {
		fmt.Fprintf(cio.err, "hearth plugin: %v\n", err)
	}
}

// installedID is the folder a fetched plugin folder installs as.
func installedID(dir string) (string, error) {
	if hagosrc.IsSource(dir) {
		plg, err := hagosrc.ReadPlg(dir)
		if err != nil {
			return "", err
		}
		return plg.Name, nil
	}
	return pluginhost.FolderID(dir)
}

// installFetched is `hearth plugin install URL|ARCHIVE`.
func installFetched(ctx context.Context, a *app.App, f *flags, cio *cmdIO, src string) int {
	restoreUpgrades(a, cio)
	dir, tmp, rec, err := fetchSource(ctx, a, cio, src)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth plugin: %v\n", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	id, err := installedID(dir)
	if err != nil {
		fmt.Fprintf(cio.err, "hearth plugin: %s holds no plugin: %v\n", src, err)
		return 1
	}
	if f.id != "" && hagosrc.IsSource(dir) {
		id = f.id // installed under the id given
	}
	if code := runPlugin(ctx, a, f, []string{"install", dir}, cio); code != 0 {
		return code
	}
	return recordSource(a, cio, id, rec)
}

// recordSource writes where plugin id came from into the data
// directory.
func recordSource(a *app.App, cio *cmdIO, id string, rec pluginhost.SourceRecord) int {
	if err := pluginhost.WriteSourceRecord(a.Plugins.Dir(), id, rec); err != nil {
		fmt.Fprintf(cio.err, "hearth plugin: recording where %s came from (hearth plugin upgrade needs it): %v\n", id, err)
		return 1
	}
	return 0
}

// upgradePlugin is `hearth plugin upgrade ID`.
func upgradePlugin(ctx context.Context, a *app.App, f *flags, cio *cmdIO, id string) int {
	fail := func(err error) int {
		fmt.Fprintf(cio.err, "hearth plugin upgrade: %v\n", err)
		return 1
	}
	restoreUpgrades(a, cio)
	dst := filepath.Join(a.Plugins.Dir(), id)
	if strings.ContainsAny(id, `/\`) || id == "." || id == ".." {
		return fail(fmt.Errorf("%q is not a plugin id (hearth plugin lists them)", id))
	}
	if _, err := os.Stat(dst); err != nil {
		return fail(fmt.Errorf("no plugin folder %s (hearth plugin lists the plugins)", dst))
	}
	rec, err := pluginhost.ReadSourceRecord(a.Plugins.Dir(), id)
	if errors.Is(err, fs.ErrNotExist) {
		return fail(fmt.Errorf("%s was installed from a folder, not from a git URL or an archive: install the folder again "+
			"(hearth plugin install FOLDER rebuilds a HomeAgent source folder; for another, hearth plugin remove %s first)\n"+
			"%s 是从本地文件夹安装的，无法自动升级：请重新安装该文件夹", id, id, id))
	}
	if err != nil {
		return fail(err)
	}
	dir, tmp, newRec, err := fetchSource(ctx, a, cio, rec.Source)
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	newID, err := installedID(dir)
	switch {
	case err != nil:
		return fail(fmt.Errorf("%s holds no plugin now: %w", rec.Source, err))
	case hagosrc.IsSource(dir): // rebuilt and swapped in place, under its id
		g := *f
		if newID != id {
			g.id = id // installed with --id
		}
		if code := runPlugin(ctx, a, &g, []string{"install", dir}, cio); code != 0 {
			return code
		}
		return recordSource(a, cio, id, newRec)
	case newID != id:
		return fail(fmt.Errorf("%s now holds the plugin %q, not %q: install it as a plugin of its own", rec.Source, newID, id))
	}
	if err := agreeToRights(f, cio, id, rightsChanges(dst, dir)); err != nil {
		return fail(err)
	}
	// The old folder waits in the data directory while the new one is
	// installed: it comes back if that fails, or at the next run if this
	// one is cut short.
	old, err := pluginhost.SetAside(a.Plugins.Dir(), id)
	if err != nil {
		return fail(fmt.Errorf("moving the old %s out: %w", dst, err))
	}
	if code := runPlugin(ctx, a, f, []string{"install", dir}, cio); code != 0 {
		if err := os.Rename(old, dst); err != nil {
			return fail(fmt.Errorf("putting the old %s back: %w", dst, err))
		}
		fmt.Fprintf(cio.err, "hearth plugin upgrade: %s is left as it was\n", id)
		return code
	}
	if code := recordSource(a, cio, id, newRec); code != 0 {
		return code
	}
	if err := os.RemoveAll(old); err != nil {
		return fail(err)
	}
	fmt.Fprintf(cio.out, "upgraded %s from %s; its settings and data are kept, and a running Hearth restarts it\n", id, rec.Source)
	return 0
}

// rightsChanges is what the plugin folder newDir asks for that oldDir
// did not (pluginhost.RightsChanges); none when neither has a
// plugin.json (a HomeAgent .so folder).
func rightsChanges(oldDir, newDir string) []string {
	om, oerr := pluginhost.LoadManifest(oldDir)
	nm, nerr := pluginhost.LoadManifest(newDir)
	switch {
	case oerr == nil && nerr == nil:
		return pluginhost.RightsChanges(om, nm)
	case oerr != nil && nerr != nil:
		return nil
	}
	return []string{"plugin.json: the new folder is another kind of plugin"}
}

// errRightsRefused means the owner did not agree to an upgrade's new
// rights.
var errRightsRefused = errors.New("not upgraded")

// agreeToRights shows changes and asks the owner on a terminal whether
// to go on; off a terminal (or through a running hearth serve) it
// refuses unless --yes was given.
func agreeToRights(f *flags, cio *cmdIO, id string, changes []string) error {
	if len(changes) == 0 {
		return nil
	}
	fmt.Fprintf(cio.out, "the new %s changes what decides its rights:\n", id)
	for _, c := range changes {
		fmt.Fprintf(cio.out, "  %s\n", c)
	}
	if f.yes {
		return nil
	}
	if cio.daemon || !isTerminal(cio.in) {
		return fmt.Errorf("%w: %s's new version changes its rights (above); run hearth plugin upgrade --yes %s to accept them\n"+
			"%s 的新版本改变了它的权限（见上）；确认后请运行 hearth plugin upgrade --yes %s", errRightsRefused, id, id, id, id)
	}
	fmt.Fprintf(cio.out, "upgrade %s anyway? [y/N] ", id)
	line, _ := bufio.NewReader(cio.in).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return fmt.Errorf("%w: %s is left as it was", errRightsRefused, id)
	}
	return nil
}
