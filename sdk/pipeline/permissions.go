package pipeline

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/hearth-agent/hearth/sdk"
)

// field names one writable part of sdk.StageContext.
type field uint16

const (
	fRawMessage field = 1 << iota
	fContextMsgs
	fLLMText
	fToolCalls
	fToolResults
	fFinalText
	fResponse
	fNoMemory
)

// permissions is the matrix of sdk.StageContext: which fields each stage
// may write. Extra is writable everywhere; every other field is read-only.
// NoMemory may be set at on_input, so a plugin can keep a message out of
// memory before anything is written (a Hearth addition).
var permissions = map[sdk.Stage]field{
	sdk.StageOnInput:        fRawMessage | fResponse | fNoMemory,
	sdk.StagePreAction:      fContextMsgs | fResponse,
	sdk.StagePostAction:     fLLMText | fToolCalls | fResponse,
	sdk.StageBeforeToolcall: fToolCalls | fResponse,
	sdk.StageAfterToolcall:  fToolResults | fResponse,
	sdk.StageBeforeOutput:   fFinalText | fResponse,
	sdk.StageAfterOutput:    0,
}

// saved is a deep copy of the fields a handler may not be allowed to
// change, taken before the handler runs (see save).
type saved struct {
	canon                         func(string) string // see Pipeline.SetCanonical
	rawMessage, userID, groupID   string
	contextMsgs                   []map[string]any
	llmText, reasoning, finalText string
	tokenUsage                    map[string]int
	toolCalls                     []sdk.ToolCall
	toolResults                   []sdk.ToolResult
	response                      *string
	memory                        []sdk.MemItem
	noMemory                      bool
	channel, chatID, injectedBy   string
}

// save copies sc's fields before a handler runs, for enforce and
// keepRefusals to compare with and restore from.
func save(sc *sdk.StageContext) *saved {
	s := &saved{
		rawMessage: sc.RawMessage, userID: sc.UserID, groupID: sc.GroupID,
		llmText: sc.LLMText, reasoning: sc.ReasoningContent, finalText: sc.FinalText,
		noMemory: sc.NoMemory, channel: sc.Channel, chatID: sc.ChatID, injectedBy: sc.InjectedBy,
	}
	if sc.ContextMsgs != nil {
		s.contextMsgs = make([]map[string]any, len(sc.ContextMsgs))
		for i, m := range sc.ContextMsgs {
			s.contextMsgs[i], _ = CloneValue(m).(map[string]any)
		}
	}
	if sc.TokenUsage != nil {
		s.tokenUsage = make(map[string]int, len(sc.TokenUsage))
		for k, v := range sc.TokenUsage {
			s.tokenUsage[k] = v
		}
	}
	if sc.ToolCalls != nil {
		s.toolCalls = make([]sdk.ToolCall, len(sc.ToolCalls))
		for i, c := range sc.ToolCalls {
			c.Arguments, _ = CloneValue(c.Arguments).(map[string]any)
			s.toolCalls[i] = c
		}
	}
	if sc.ToolResults != nil {
		s.toolResults = make([]sdk.ToolResult, len(sc.ToolResults))
		for i, r := range sc.ToolResults {
			r.Result = CloneValue(r.Result)
			s.toolResults[i] = r
		}
	}
	if sc.Response != nil {
		r := *sc.Response
		s.response = &r
	}
	if sc.Memory != nil {
		s.memory = append([]sdk.MemItem(nil), sc.Memory...)
	}
	return s
}

// same reports whether a and b hold the same elements; nil and empty are
// the same (a stage given an empty list, or one that came back over the
// plugin protocol without it, did not write it).
func same[T any](a, b []T) bool {
	return len(a) == 0 && len(b) == 0 || reflect.DeepEqual(a, b)
}

// enforce undoes every change to a field stage may not write and returns
// the names of the fields it restored.
func (s *saved) enforce(stage sdk.Stage, sc *sdk.StageContext) []string {
	allowed := permissions[stage]
	var undone []string
	restore := func(f field, name string, changed bool, undo func()) {
		if allowed&f == 0 && changed {
			undo()
			undone = append(undone, name)
		}
	}
	restore(fRawMessage, "RawMessage", sc.RawMessage != s.rawMessage, func() { sc.RawMessage = s.rawMessage })
	restore(fContextMsgs, "ContextMsgs", !same(sc.ContextMsgs, s.contextMsgs), func() { sc.ContextMsgs = s.contextMsgs })
	restore(fLLMText, "LLMText", sc.LLMText != s.llmText, func() { sc.LLMText = s.llmText })
	restore(fToolCalls, "ToolCalls", !same(sc.ToolCalls, s.toolCalls), func() { sc.ToolCalls = s.toolCalls })
	restore(fToolResults, "ToolResults", !same(sc.ToolResults, s.toolResults), func() { sc.ToolResults = s.toolResults })
	restore(fFinalText, "FinalText", sc.FinalText != s.finalText, func() { sc.FinalText = s.finalText })
	restore(fResponse, "Response", !equalStringPtr(sc.Response, s.response), func() { sc.Response = s.response })
	restore(fNoMemory, "NoMemory", sc.NoMemory != s.noMemory, func() { sc.NoMemory = s.noMemory })
	// Never writable.
	restore(0, "UserID", sc.UserID != s.userID, func() { sc.UserID = s.userID })
	restore(0, "GroupID", sc.GroupID != s.groupID, func() { sc.GroupID = s.groupID })
	restore(0, "ReasoningContent", sc.ReasoningContent != s.reasoning, func() { sc.ReasoningContent = s.reasoning })
	restore(0, "TokenUsage", !(len(sc.TokenUsage) == 0 && len(s.tokenUsage) == 0 || reflect.DeepEqual(sc.TokenUsage, s.tokenUsage)), func() { sc.TokenUsage = s.tokenUsage })
	restore(0, "Memory", !same(sc.Memory, s.memory), func() { sc.Memory = s.memory })
	restore(0, "Channel", sc.Channel != s.channel, func() { sc.Channel = s.channel })
	restore(0, "ChatID", sc.ChatID != s.chatID, func() { sc.ChatID = s.chatID })
	restore(0, "InjectedBy", sc.InjectedBy != s.injectedBy, func() { sc.InjectedBy = s.injectedBy })
	return undone
}

// keptRefusal is a refusal a handler tried to clear or weaken.
type keptRefusal struct {
	call  string // the call's ID
	field string // Deny, Ask, or removal (the call was put back)
	kept  string // its text, restored
}

// keepRefusals restores every ToolCall.Deny and ToolCall.Ask set before
// the handler ran that it cleared or changed, and returns what it
// restored: a handler may refuse a call, make it ask, or deny a call that
// asks, but never withdraw or weaken a refusal another handler set. A
// refusal belongs to the call it was set on and to any call with the same
// name and arguments, whatever its id; a refused call the handler removed
// is put back, last, still refused. (The seed's matrix lets
// before_toolcall write Deny; Hearth narrows that to "set", so that a
// plugin cannot undo a guard.)
func (s *saved) keepRefusals(sc *sdk.StageContext) []keptRefusal {
	var byID, byContent map[string]sdk.ToolCall // the refusals set before
	for _, c := range s.toolCalls {
		if c.Deny == "" && c.Ask == "" {
			continue
		}
		if byID == nil {
			byID, byContent = map[string]sdk.ToolCall{}, map[string]sdk.ToolCall{}
		}
		byID[c.ID] = mergeRefusal(byID[c.ID], c)
		byContent[callContent(c, s.canon)] = mergeRefusal(byContent[callContent(c, s.canon)], c)
	}
	if byID == nil {
		return nil
	}
	var kept []keptRefusal
	present := map[string]bool{}
	for i := range sc.ToolCalls {
		c := &sc.ToolCalls[i]
		present[c.ID] = true
		r := mergeRefusal(byID[c.ID], byContent[callContent(*c, s.canon)])
		if r.Deny != "" && c.Deny != r.Deny {
			c.Deny = r.Deny
			kept = append(kept, keptRefusal{call: c.ID, field: "Deny", kept: r.Deny})
		}
		if r.Ask != "" && c.Ask != r.Ask {
			c.Ask = r.Ask
			kept = append(kept, keptRefusal{call: c.ID, field: "Ask", kept: r.Ask})
		}
	}
	for _, c := range s.toolCalls {
		if (c.Deny != "" || c.Ask != "") && !present[c.ID] {
			present[c.ID] = true
			c.Arguments, _ = CloneValue(c.Arguments).(map[string]any)
			sc.ToolCalls = append(sc.ToolCalls, c)
			kept = append(kept, keptRefusal{call: c.ID, field: "removal", kept: c.Deny + c.Ask})
		}
	}
	return kept
}

// mergeRefusal returns r with c's Deny and Ask where r has none.
func mergeRefusal(r, c sdk.ToolCall) sdk.ToolCall {
	if r.Deny == "" {
		r.Deny = c.Deny
	}
	if r.Ask == "" {
		r.Ask = c.Ask
	}
	return r
}

// callContent is what a call does, whatever its id: its name and its
// arguments, encoded canonically (no arguments and {} are the same).
func callContent(c sdk.ToolCall, canon func(string) string) string {
	args := "{}"
	if len(c.Arguments) > 0 {
		b, err := json.Marshal(c.Arguments)
		if err != nil {
			b = []byte(fmt.Sprintf("%#v", c.Arguments)) // not JSON: compared as Go values
		}
		args = string(b)
	}
	name := c.Name
	if canon != nil {
		name = canon(name)
	}
	return name + "\x00" + args
}

// sameCalls reports whether a and b are the same calls in the same order:
// the same ids, names and arguments. Refusals do not count.
func sameCalls(a, b []sdk.ToolCall, canon func(string) string) bool {
	return slices.EqualFunc(a, b, func(x, y sdk.ToolCall) bool {
		return x.ID == y.ID && callContent(x, canon) == callContent(y, canon)
	})
}

func equalStringPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// CloneValue deep-copies the JSON-shaped values a StageContext carries
// (map[string]any, []any and []map[string]any, nested; anything else is
// returned as is), for a host that compares a value before and after a
// stage: handlers may change such values in place.
func CloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = CloneValue(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = CloneValue(e)
		}
		return s
	case []map[string]any:
		s := make([]map[string]any, len(x))
		for i, e := range x {
			s[i], _ = CloneValue(e).(map[string]any)
		}
		return s
	default:
		return v
	}
}
