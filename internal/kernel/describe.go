package kernel

import (
	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/tools"
)

// dynamicDescriptions returns specs with the current text of each tool
// whose description is dynamic (sdk.ToolDef.DescriptionFunc, a PKU
// harness Dynamic<string>), copying specs only when there is one. The
// function keeps its own cache and deadline (a plugin process's answers
// are at most 30 s old and fall back to the last good text); an empty
// answer keeps the registered description.
func dynamicDescriptions(list []*tools.Tool, specs []llm.ToolSpec) []llm.ToolSpec {
	var out []llm.ToolSpec
	for i, t := range list {
		if t.Def.DescriptionFunc == nil || i >= len(specs) {
			continue
		}
		text := t.Def.DescriptionFunc()
		if text == "" || text == specs[i].Function.Description {
			continue
		}
		if out == nil {
			out = append([]llm.ToolSpec(nil), specs...)
		}
		out[i].Function.Description = text
	}
	if out == nil {
		return specs
	}
	return out
}
