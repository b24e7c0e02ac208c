package kernel

import (
	"encoding/json"
	"reflect"

	"github.com/hearth-agent/hearth/internal/tools"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// HomeAgent's ToolDef.NoMemory and ToolDef.Cleaner act on memory
// computation only. Hearth computes no memory itself: plugins do, from
// the results their after_toolcall handlers see. So the kernel marks each
// result there: NoMemory when the tool is NoMemory, and MemoryText, the
// text to compute memory from (the result through the tool's Cleaner, run
// here for a compiled-in plugin and by the plugin for a child process).
// What the model reads, the history and the trace keep the result as the
// tool returned it.

// memoryOf returns what memory computation may use of r, the result of a
// call of tool (nil for a call of no tool): noMemory, or the text.
func memoryOf(tool *tools.Tool, r toolcall.Result) (noMemory bool, text string) {
	if tool != nil && tool.Def.NoMemory {
		return true, ""
	}
	if r.MemoryText != nil {
		return false, *r.MemoryText
	}
	if tool != nil && tool.Def.Cleaner != nil {
		return false, runCleaner(tool.Def.Cleaner, r.Content)
	}
	return false, r.Content
}

// runCleaner applies a plugin's Cleaner; one that panics leaves text as
// it is (the plugin's bug must not end the turn).
func runCleaner(cleaner func(string) string, text string) (out string) {
	defer func() {
		if recover() != nil {
			out = text
		}
	}()
	return cleaner(text)
}

// sameResult reports whether an after_toolcall handler left a result as
// it was. A child plugin's result is JSON text (toolcall.ValidJSON); a
// child's handler hands it back decoded, which is the same result when it
// decodes to the same value, and is then kept byte for byte.
func sameResult(got, before any) bool {
	if reflect.DeepEqual(got, before) {
		return true
	}
	raw, ok := before.(toolcall.ValidJSON)
	if !ok {
		return false
	}
	var v any
	return json.Unmarshal(raw, &v) == nil && reflect.DeepEqual(got, v)
}
