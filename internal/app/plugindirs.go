package app

import (
	"os"
	"path/filepath"

	"github.com/hearth-agent/hearth/sdk"
)

// pluginDirs is the settings service until the settings store lands: it
// gives each plugin its data directory, and every other method fails with
// sdk.ErrUnavailable.
type pluginDirs struct {
	sdk.Unavailable
	dir string
}

func newPluginDirs(dataDir, plugin string) pluginDirs {
	return pluginDirs{
		Unavailable: sdk.Unavailable{Service: "settings"},
		dir:         filepath.Join(dataDir, "plugin_data", plugin),
	}
}

// DataDir returns <data dir>/plugin_data/<plugin>, created on demand.
func (p pluginDirs) DataDir() string {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return ""
	}
	return p.dir
}
