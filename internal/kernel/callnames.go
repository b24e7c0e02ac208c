package kernel

import "github.com/hearth-agent/hearth/internal/llm"

// callNames rewrites the name of each of the model's calls to the name
// its tool is offered under (tools.Registry.CallName): a call by the
// qualified name plugin__tool of a tool offered as tool is that call. So
// the results and the history carry the one name the model is shown;
// stage handlers are shown tools.StageName (toStageCalls), decision hooks
// the qualified name. A name that resolves to no tool is left as it is,
// and refused as unknown.
func (k *Kernel) callNames(calls []llm.ToolCall) {
	for i := range calls {
		if t, ok := k.tools.Lookup(calls[i].Function.Name); ok {
			calls[i].Function.Name = k.tools.CallName(t)
		}
	}
}

// canonicalName is the qualified name of the tool name stands for, or
// name when it stands for none: the stage pipeline compares calls by it,
// so a refusal holds for a call however it names its tool.
func (k *Kernel) canonicalName(name string) string {
	if t, ok := k.tools.Lookup(name); ok {
		return t.Name
	}
	return name
}
