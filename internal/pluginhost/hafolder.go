package pluginhost

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hearth-agent/hearth/internal/hagosrc"
)

// soFile returns the Go plugin library to load from a plugins-folder
// folder without a plugin.json, in either layout: <folder>.so (Hearth's
// .so layout), or HomeAgent's, a plg.json naming the plugin (its name
// must be the folder's) with the library its entry names (plugin.so by
// default). A folder with a plg.json and nothing Hearth can load gets why
// instead, for `hearth plugin` to show: a HomeAgent folder is never
// skipped silently.
func soFile(dir, folder string) (path, why string) {
	if p := filepath.Join(dir, folder+".so"); exists(p) {
		return p, ""
	}
	if !exists(filepath.Join(dir, hagosrc.PlgFile)) {
		return "", ""
	}
	plg, err := hagosrc.ReadPlg(dir)
	if err != nil {
		return "", "not loaded: " + err.Error()
	}
	if plg.Lua() {
		return "", fmt.Sprintf("not loaded: a HomeAgent Lua plugin (entry %q); Hearth runs Go plugins only", plg.Entry)
	}
	if plg.Name != folder {
		return "", fmt.Sprintf("not loaded: plg.json names the plugin %q but its folder is %q; rename the folder to %s", plg.Name, folder, plg.Name)
	}
	entry := plg.Entry
	if !strings.HasSuffix(entry, ".so") {
		entry = "plugin.so"
	}
	if filepath.Base(entry) != entry || entry == ".." {
		return "", fmt.Sprintf("not loaded: plg.json's entry %q must be a file in the plugin's folder", plg.Entry)
	}
	if p := filepath.Join(dir, entry); exists(p) {
		return p, ""
	}
	switch {
	case exists(filepath.Join(dir, "plugin.bin")):
		return "", "not loaded: plugin.bin is a HomeAgent 1.x build, which speaks HomeAgent's own child-process protocol; " +
			"install the plugin's Go source folder instead (`hearth plugin install SOURCE`), and Hearth builds it"
	case hagosrc.IsSource(dir):
		return "", "not loaded: a HomeAgent Go source folder; Hearth builds one when it is installed: move it out of the plugins folder " +
			"and run `hearth plugin install FOLDER`"
	}
	return "", fmt.Sprintf("not loaded: a HomeAgent plugin folder (plg.json) without %s; install the plugin's Go source folder (`hearth plugin install SOURCE`), and Hearth builds it", entry)
}

// exists reports whether path exists.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, os.ErrNotExist)
}
