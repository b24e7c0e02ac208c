package app

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hearth-agent/hearth/sdk"
)

func TestPluginDirs(t *testing.T) {
	data := t.TempDir()
	p := newPluginDirs(data, "memo")
	if v, err := p.GetCore("core.daemon.data_dir"); err != nil || v != data {
		t.Fatalf("data dir: %v %v", v, err)
	}
	if _, err := p.GetCore("core.other"); !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("other core key: %v", err)
	}
	if _, err := p.Get("x"); !errors.Is(err, sdk.ErrUnavailable) {
		t.Fatalf("plugin key: %v", err)
	}
	dir := p.DataDir()
	if dir != filepath.Join(data, "plugin_data", "memo") {
		t.Fatal(dir)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("not created: %v", err)
	}
}
