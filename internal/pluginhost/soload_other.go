//go:build !((linux || darwin) && cgo)

package pluginhost

import (
	"errors"

	"github.com/hearth-agent/hearth/sdk"
)

// SOSupported reports whether this build can load .so plugins.
const SOSupported = false

// ErrSOUnsupported is returned where Go plugins cannot be loaded.
var ErrSOUnsupported = errors.New(".so plugins need Linux or macOS and a build with cgo")

// LoadSO fails: this build cannot load Go plugins.
func LoadSO(string) (sdk.NewPlugin, error) { return nil, ErrSOUnsupported }
