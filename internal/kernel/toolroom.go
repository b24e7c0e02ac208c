package kernel

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/tools"
)

// toolShare is the part of a request's input budget (the window less the
// answer's reserve) the tool list may take. Past it the largest plugins'
// tools are offered on demand, through plugins__use, so that the
// instructions, the message and some history keep their room.
const toolShare = 2

// toolRoom holds the plugins whose tools are offered on demand because
// the tool list does not fit the window (deferPlugins), for one tool list
// and one budget: it is computed again when either changes.
type toolRoom struct {
	mu       sync.Mutex
	list     []*tools.Tool // the tool list it was computed for
	budget   int
	deferred map[string]bool
	logged   string // the deferred plugins last logged, so each change is logged once
}

// onDemand reports whether tool is offered only after its plugin is
// loaded with plugins__use: it says so (ToolDef.OnDemand), or its plugin
// is one whose tools do not fit the window.
func (k *Kernel) onDemand(tool *tools.Tool) bool {
	if tool.Def.OnDemand {
		return true
	}
	k.room.mu.Lock()
	defer k.room.mu.Unlock()
	return k.room.deferred[tool.Plugin]
}

// fitTools decides, before a turn builds its request, which plugins'
// tools are offered on demand for a request input budget of budget
// tokens: none when the always-offered tools take at most budget/toolShare,
// else the largest plugins first until the rest fit. The core tool
// plugins__use is never deferred. A change is logged once.
func (k *Kernel) fitTools(budget int) {
	list, callNames := k.tools.ListNamed()
	room := &k.room
	room.mu.Lock()
	defer room.mu.Unlock()
	if sameTools(list, room.list) && room.budget == budget {
		return
	}
	room.list, room.budget = list, budget
	limit := budget / toolShare
	perPlugin := map[string]int{}
	total := 0
	for i, t := range list {
		if t.Def.OnDemand {
			continue
		}
		d := t.Def.Description
		if len(d) > MaxDescription {
			d = capDescription(d)
		}
		n := toolsTokens([]llm.ToolSpec{{Function: llm.FunctionSpec{
			Name: callNames[i], Description: d, Parameters: json.RawMessage(t.Schema)}}})
		total += n
		if t.Plugin != usePlugin {
			perPlugin[t.Plugin] += n
		}
	}
	deferred := map[string]bool{}
	if total > limit {
		plugins := make([]string, 0, len(perPlugin))
		for p := range perPlugin {
			plugins = append(plugins, p)
		}
		slices.SortFunc(plugins, func(a, b string) int {
			return cmp.Or(cmp.Compare(perPlugin[b], perPlugin[a]), cmp.Compare(a, b))
		})
		for _, p := range plugins {
			if total <= limit {
				break
			}
			deferred[p] = true
			total -= perPlugin[p]
		}
	}
	room.deferred = deferred
	names := make([]string, 0, len(deferred))
	for p := range deferred {
		names = append(names, p)
	}
	slices.Sort(names)
	if key := strings.Join(names, ","); key != room.logged {
		room.logged = key
		if len(names) > 0 {
			k.log.Warn("the tools do not fit the model's context window; these plugins' tools are offered on demand (plugins__use)",
				"plugins", names, "tool_budget_tokens", limit, "tools_tokens_left", total)
		} else {
			k.log.Info("the tools fit the model's context window again; every plugin's tools are offered")
		}
	}
}

// ErrNoRoom means the instructions and the tools, not the message, leave
// too little of the model's context window for a turn, even with the
// largest plugins' tools offered on demand. errors.Is also matches it to
// ErrInputTooLong: the input is refused, not stored.
var ErrNoRoom = errors.New("the instructions and tools leave no room in the model's context window")

// roomError is a refusal of an input that cannot fit: its text names what
// takes the room; it matches its sentinel and ErrInputTooLong.
type roomError struct {
	sentinel error
	text     string
}

func (e *roomError) Error() string { return e.sentinel.Error() + ": " + e.text }

func (e *roomError) Is(target error) bool { return target == e.sentinel || target == ErrInputTooLong }

// inputRoom is what an input needs of the window, part by part, in tokens.
type inputRoom struct {
	instructions, message, tools, history int
	deferred                              int // plugins whose tools are offered on demand
}

// tooLong returns the refusal of an input that needs more than budget
// tokens of model's window: it blames the message when the message is
// most of it, else names the parts and the ways to make room.
func (r inputRoom) tooLong(model string, window, budget int) error {
	need := r.instructions + r.message + r.tools
	parts := fmt.Sprintf("about %d tokens: instructions %d, tools %d, message %d (the history, %d, is left out first)",
		need, r.instructions, r.tools, r.message, r.history)
	if r.deferred > 0 {
		parts += fmt.Sprintf("; %d plugins' tools are already offered on demand", r.deferred)
	}
	fit := fmt.Sprintf("%s takes about %d, less %d kept for the answer", model, window, window-budget)
	if r.message >= r.instructions+r.tools {
		return &roomError{ErrInputTooLong, fmt.Sprintf("it is %s, and %s. Shorten it or send it in parts "+
			"(set \"context_window\" of the source in config.json if the model takes more)", parts, fit)}
	}
	return &roomError{ErrNoRoom, fmt.Sprintf("the turn needs %s, and %s. Set \"context_window\" of the source in "+
		"config.json if the model takes more, or turn plugins off (hearth plugin disable NAME) or shorten their instructions", parts, fit)}
}

// deferredCount is how many plugins' tools are offered on demand for room.
func (k *Kernel) deferredCount() int {
	k.room.mu.Lock()
	defer k.room.mu.Unlock()
	return len(k.room.deferred)
}

// fitToolsNow is fitTools for the configured model's window, for callers
// outside a turn (OfferedTools) that show the tool list a turn would get.
func (k *Kernel) fitToolsNow() {
	window, _ := k.contextWindow(&llm.Request{Model: k.cfg.Model})
	k.fitTools(window - answerReserve(window))
}

// OnDemandPlugins returns, by plugin, why its tools are offered only once
// the agent loads them with plugins__use in a new conversation: its tools
// are marked OnDemand, or they do not fit the configured model's context
// window. It is for listings (hearth tools), which otherwise miss them.
func (k *Kernel) OnDemandPlugins() map[string]string {
	k.fitToolsNow()
	out := map[string]string{}
	for _, t := range k.tools.List() {
		switch {
		case !k.onDemand(t):
		case !t.Def.OnDemand:
			out[t.Plugin] = "offered on demand (plugins__use): its tools do not fit the model's context window (context_window in config.json)"
		case out[t.Plugin] == "":
			out[t.Plugin] = "offered on demand (plugins__use): its tools are marked so"
		}
	}
	return out
}
