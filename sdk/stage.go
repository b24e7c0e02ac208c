package sdk

import "sync"

// Stage names a point in the message pipeline.
type Stage string

// The seven stages, in the order one message passes through them.
const (
	StageOnInput        Stage = "on_input"        // message arrived, nothing done yet
	StagePreAction      Stage = "pre_action"      // before the model call, context ready
	StagePostAction     Stage = "post_action"     // after the model answered
	StageBeforeToolcall Stage = "before_toolcall" // before one tool call runs
	StageAfterToolcall  Stage = "after_toolcall"  // after one tool call ran
	StageBeforeOutput   Stage = "before_output"   // before the final text is sent
	StageAfterOutput    Stage = "after_output"    // after the final text was sent
)

// Stages returns the seven stages in pipeline order, in a new slice.
func Stages() []Stage {
	return []Stage{
		StageOnInput, StagePreAction, StagePostAction,
		StageBeforeToolcall, StageAfterToolcall,
		StageBeforeOutput, StageAfterOutput,
	}
}

// StageHandler runs at a stage. An error is logged and the pipeline goes
// on; a before_toolcall handler that wants to refuse a call sets
// ToolCall.Deny (or ToolCall.Ask) instead. A refusal, once set, stays:
// a later handler that clears or changes it has that write undone.
type StageHandler func(ctx *StageContext) error

// StageContext is what stage handlers read and write. Which fields a
// handler may change depends on the stage (the permission matrix):
//
//	field        on_input pre_action post_action before_toolcall after_toolcall before_output after_output
//	RawMessage   rw       -          -           -               -              -             -
//	ContextMsgs  -        rw         -           -               -              -             -
//	LLMText      -        -          rw          -               -              -             -
//	ToolCalls    -        -          rw          rw (and Deny)   -              -             -
//	ToolResults  -        -          -           -               rw             -             -
//	FinalText    -        -          -           -               -              rw            r
//	Response     rw       rw         rw          rw              rw             rw            -
//
// Extra is writable at every stage and carries data between handlers. All
// other fields are read-only. A write a stage does not allow is discarded
// and logged by the host. Setting Response skips the rest of the pipeline
// and sends *Response to the user; after_output still runs. Set at
// before_toolcall, it ends the turn before the call in question, which
// does not run.
//
// ToolCall.Deny and ToolCall.Ask may be set, not withdrawn: a handler may
// refuse a call, make it ask, or deny a call that asks, but a write that
// clears or changes a Deny or an Ask set before the handler ran (by
// another plugin's handler, or at post_action) is undone and logged. (The
// HomeAgent matrix marks Deny read-write; Hearth narrows it so that no
// plugin can undo another's guard.) A refusal also holds for any call
// with the same name and arguments, whatever its id, and a refused call a
// handler removes is put back, still refused.
//
// Every handler of a stage sees the calls as they will run: when a
// post_action or before_toolcall handler changes a call's id, name or
// arguments, or adds, removes or reorders calls, the stage runs again (all
// its handlers, in order) until a pass changes nothing; calls still
// changing after three passes are refused. Setting Deny or Ask is not a
// change. A handler may so run more than once for one call, and should
// rewrite idempotently.
//
// Handlers of one stage run one after another, never in parallel; Lock and
// Unlock exist for handlers that hand the context to goroutines of their
// own.
type StageContext struct {
	mu               sync.RWMutex
	RawMessage       string           // the input text (on_input may rewrite it)
	UserID           string           // who is speaking
	GroupID          string           // group chat id, empty in a private chat
	ContextMsgs      []map[string]any // messages sent to the model (pre_action may add)
	LLMText          string           // the model's text (post_action may rewrite)
	ReasoningContent string           // the model's reasoning text
	TokenUsage       map[string]int   // token usage of the model call
	ToolCalls        []ToolCall       // tool calls the model requested
	ToolResults      []ToolResult     // results of the tool calls
	FinalText        string           // the answer (before_output may rewrite)
	Response         *string          // set to short-circuit to after_output
	Phase            Stage            // the stage now running
	Memory           []MemItem        // recalled memory
	NoMemory         bool             // this turn is not written to memory
	Extra            map[string]any   // free-form data shared between handlers

	// Channel and ChatID say where the message came from. They are
	// Hearth additions and read-only.
	Channel string
	ChatID  string
	// InjectedBy is the plugin that injected the input, empty when a
	// person on a channel sent it (see ToolContext.InjectedBy). A Hearth
	// addition, read-only: what a child process sends back is ignored.
	InjectedBy string
}

// Lock takes the context's write lock.
func (c *StageContext) Lock() { c.mu.Lock() }

// Unlock releases the write lock.
func (c *StageContext) Unlock() { c.mu.Unlock() }

// RLock takes the context's read lock.
func (c *StageContext) RLock() { c.mu.RLock() }

// RUnlock releases the read lock.
func (c *StageContext) RUnlock() { c.mu.RUnlock() }

// SetResponse sets Response to text, ending the pipeline after this stage.
func (c *StageContext) SetResponse(text string) { c.Response = &text }

// MemItem is one recalled memory item.
type MemItem struct {
	Role    string  `json:"role"`    // system / user / assistant
	Content string  `json:"content"` // the text
	Score   float64 `json:"score"`   // relevance
}
