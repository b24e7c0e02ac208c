package app

import (
	"os"
	"path/filepath"

	"github.com/hearth-agent/hearth/sdk"
)

// pluginDirs is the settings service until the settings store lands: it
// gives each plugin its data directory and answers the one core key
// HomeAgent plugins read at start (core.daemon.data_dir, Hearth's data
// directory); every other method fails with sdk.ErrUnavailable.
type pluginDirs struct {
	sdk.Unavailable
	dir     string
	dataDir string
}

func newPluginDirs(dataDir, plugin string) pluginDirs {
	return pluginDirs{
		Unavailable: sdk.Unavailable{Service: "settings"},
		dir:         filepath.Join(dataDir, "plugin_data", plugin),
		dataDir:     dataDir,
	}
}

// coreDataDir is the core setting HomeAgent plugins use to find where to
// keep their files.
const coreDataDir = "core.daemon.data_dir"

// GetCore answers core.daemon.data_dir; other keys are unavailable.
func (p pluginDirs) GetCore(key string) (interface{}, error) {
	if key == coreDataDir {
		return p.dataDir, nil
	}
	return p.Unavailable.GetCore(key)
}

// DataDir returns <data dir>/plugin_data/<plugin>, created on demand.
func (p pluginDirs) DataDir() string {
	if err := os.MkdirAll(p.dir, 0o700); err != nil {
		return ""
	}
	return p.dir
}
