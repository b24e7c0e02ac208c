package kernel

import (
	"reflect"

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

// snapshot is a deep copy of the fields a handler may not be allowed to
// change, taken before the handler runs.
type snapshot struct {
	rawMessage, userID, groupID   string
	contextMsgs                   []map[string]any
	llmText, reasoning, finalText string
	tokenUsage                    map[string]int
	toolCalls                     []sdk.ToolCall
	toolResults                   []sdk.ToolResult
	response                      *string
	memory                        []sdk.MemItem
	noMemory                      bool
	channel, chatID               string
}

func takeSnapshot(sc *sdk.StageContext) *snapshot {
	s := &snapshot{
		rawMessage: sc.RawMessage, userID: sc.UserID, groupID: sc.GroupID,
		llmText: sc.LLMText, reasoning: sc.ReasoningContent, finalText: sc.FinalText,
		noMemory: sc.NoMemory, channel: sc.Channel, chatID: sc.ChatID,
	}
	if sc.ContextMsgs != nil {
		s.contextMsgs = make([]map[string]any, len(sc.ContextMsgs))
		for i, m := range sc.ContextMsgs {
			s.contextMsgs[i], _ = cloneValue(m).(map[string]any)
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
			c.Arguments, _ = cloneValue(c.Arguments).(map[string]any)
			s.toolCalls[i] = c
		}
	}
	if sc.ToolResults != nil {
		s.toolResults = make([]sdk.ToolResult, len(sc.ToolResults))
		for i, r := range sc.ToolResults {
			r.Result = cloneValue(r.Result)
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

// enforce undoes every change to a field stage may not write and returns
// the names of the fields it restored.
func (s *snapshot) enforce(stage sdk.Stage, sc *sdk.StageContext) []string {
	allowed := permissions[stage]
	var undone []string
	restore := func(f field, name string, changed bool, undo func()) {
		if allowed&f == 0 && changed {
			undo()
			undone = append(undone, name)
		}
	}
	restore(fRawMessage, "RawMessage", sc.RawMessage != s.rawMessage, func() { sc.RawMessage = s.rawMessage })
	restore(fContextMsgs, "ContextMsgs", !reflect.DeepEqual(sc.ContextMsgs, s.contextMsgs), func() { sc.ContextMsgs = s.contextMsgs })
	restore(fLLMText, "LLMText", sc.LLMText != s.llmText, func() { sc.LLMText = s.llmText })
	restore(fToolCalls, "ToolCalls", !reflect.DeepEqual(sc.ToolCalls, s.toolCalls), func() { sc.ToolCalls = s.toolCalls })
	restore(fToolResults, "ToolResults", !reflect.DeepEqual(sc.ToolResults, s.toolResults), func() { sc.ToolResults = s.toolResults })
	restore(fFinalText, "FinalText", sc.FinalText != s.finalText, func() { sc.FinalText = s.finalText })
	restore(fResponse, "Response", !equalStringPtr(sc.Response, s.response), func() { sc.Response = s.response })
	restore(fNoMemory, "NoMemory", sc.NoMemory != s.noMemory, func() { sc.NoMemory = s.noMemory })
	// Never writable.
	restore(0, "UserID", sc.UserID != s.userID, func() { sc.UserID = s.userID })
	restore(0, "GroupID", sc.GroupID != s.groupID, func() { sc.GroupID = s.groupID })
	restore(0, "ReasoningContent", sc.ReasoningContent != s.reasoning, func() { sc.ReasoningContent = s.reasoning })
	restore(0, "TokenUsage", !reflect.DeepEqual(sc.TokenUsage, s.tokenUsage), func() { sc.TokenUsage = s.tokenUsage })
	restore(0, "Memory", !reflect.DeepEqual(sc.Memory, s.memory), func() { sc.Memory = s.memory })
	restore(0, "Channel", sc.Channel != s.channel, func() { sc.Channel = s.channel })
	restore(0, "ChatID", sc.ChatID != s.chatID, func() { sc.ChatID = s.chatID })
	return undone
}

// keptRefusal is a refusal a handler tried to clear or weaken.
type keptRefusal struct {
	call  string // the call's ID
	field string // Deny or Ask
	kept  string // its text, restored
}

// keepRefusals restores every ToolCall.Deny and ToolCall.Ask set before
// the handler ran that it cleared or changed, and returns what it
// restored: a handler may refuse a call, make it ask, or deny a call that
// asks, but never withdraw or weaken a refusal another handler set. Calls
// are matched by ID. (The seed's matrix lets before_toolcall write Deny;
// Hearth narrows that to "set", so that a plugin cannot undo a guard.)
func (s *snapshot) keepRefusals(sc *sdk.StageContext) []keptRefusal {
	var set map[string]sdk.ToolCall // by call ID: the refusals set before
	for _, c := range s.toolCalls {
		if c.Deny == "" && c.Ask == "" {
			continue
		}
		if set == nil {
			set = map[string]sdk.ToolCall{}
		}
		r := set[c.ID]
		if r.Deny == "" {
			r.Deny = c.Deny
		}
		if r.Ask == "" {
			r.Ask = c.Ask
		}
		set[c.ID] = r
	}
	var kept []keptRefusal
	for i := range sc.ToolCalls {
		c := &sc.ToolCalls[i]
		r, ok := set[c.ID]
		if !ok {
			continue
		}
		if r.Deny != "" && c.Deny != r.Deny {
			c.Deny = r.Deny
			kept = append(kept, keptRefusal{call: c.ID, field: "Deny", kept: r.Deny})
		}
		if r.Ask != "" && c.Ask != r.Ask {
			c.Ask = r.Ask
			kept = append(kept, keptRefusal{call: c.ID, field: "Ask", kept: r.Ask})
		}
	}
	return kept
}

func equalStringPtr(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// cloneValue deep-copies the JSON-shaped values stage contexts carry.
func cloneValue(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = cloneValue(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = cloneValue(e)
		}
		return s
	case []map[string]any:
		s := make([]map[string]any, len(x))
		for i, e := range x {
			s[i], _ = cloneValue(e).(map[string]any)
		}
		return s
	default:
		return v
	}
}
