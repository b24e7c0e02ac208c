// Package pysdk carries the Python SDK, so that Hearth can put it on the
// PYTHONPATH of child plugins and copy it into scaffolded plugins (see
// internal/scaffold).
package pysdk

import _ "embed"

// Module is the source of hearth_plugin.py, the module plugins import.
//
//go:embed hearth_plugin.py
var Module []byte

// PKUModule is the source of hearth_pku.py, the PKU harness plugin model,
// which hearth_plugin imports and re-exports.
//
//go:embed hearth_pku.py
var PKUModule []byte

// ModuleName is the name plugins import the SDK by.
const ModuleName = "hearth_plugin"

// Files are the SDK's files by name: what goes on the PYTHONPATH, and
// what a scaffolded plugin gets a copy of.
var Files = map[string][]byte{ModuleName + ".py": Module, "hearth_pku.py": PKUModule}
