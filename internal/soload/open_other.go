//go:build !((linux || darwin) && cgo)

package soload

import (
	"errors"

	"github.com/hearth-agent/hearth/sdk"
)

// Supported reports whether this build can open .so plugins.
const Supported = false

// ErrUnsupported is returned where Go plugins cannot be opened.
var ErrUnsupported = errors.New(".so plugins need Linux or macOS and a loader built with cgo")

// Open fails: this build cannot open Go plugins.
func Open(string) (sdk.NewPlugin, error) { return nil, ErrUnsupported }
