// Package pysdk carries the Python SDK, one module, so that Hearth can
// put it on the PYTHONPATH of child plugins and copy it into scaffolded
// plugins (see internal/scaffold).
package pysdk

import _ "embed"

// Module is the source of hearth_plugin.py.
//
//go:embed hearth_plugin.py
var Module []byte

// ModuleName is the name plugins import the SDK by.
const ModuleName = "hearth_plugin"
