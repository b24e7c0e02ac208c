package kernel

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/tools"
)

// describeBudget bounds the wait for the dynamic descriptions of one tool
// list, all of them together: a tool whose text is not there by then is
// sent with the registered one, and later lists do not wait for that call
// again (it goes on; a plugin's answer is reused next time, see
// pluginhost's describer).
const describeBudget = 2 * time.Second

// MaxDescription is the most bytes of a tool's description, static or
// dynamic, sent to the model; a longer one is cut at a rune boundary and
// ends with descriptionCut. Every request carries every offered tool's
// description, so one plugin's long text would fill the context window
// of every turn.
const MaxDescription = 4 << 10

// descriptionCut ends a description cut at MaxDescription.
const descriptionCut = " […description cut by Hearth]"

// describing holds the dynamic description calls in flight, by tool, so
// that a slow tool is asked once however many requests want it; an entry
// lives only while its call runs.
var describing sync.Map // *tools.Tool -> *descCall

// descCall is one DescriptionFunc call; text is set before done closes.
// waited is set for a call that an earlier list already waited for: a
// later list does not wait for it again.
type descCall struct {
	done   chan struct{}
	text   string
	waited atomic.Bool
}

// describe returns specs (the offered tools' specs, list their tools)
// ready for the model: each dynamic description (sdk.ToolDef.
// DescriptionFunc, a PKU harness Dynamic<string>) asked concurrently
// under one describeBudget, with the provider's secrets masked as in a
// tool's result, and every description cut at MaxDescription. specs is
// copied only when a description changes; an empty or late answer keeps
// the registered description.
func (k *Kernel) describe(list []*tools.Tool, specs []llm.ToolSpec) []llm.ToolSpec {
	var calls map[int]*descCall
	for i, t := range list {
		if t.Def.DescriptionFunc == nil || i >= len(specs) {
			continue
		}
		if calls == nil {
			calls = map[int]*descCall{}
		}
		calls[i] = k.startDescribe(t)
	}
	var out []llm.ToolSpec
	set := func(i int, text string) {
		if text == specs[i].Function.Description {
			return
		}
		if out == nil {
			out = append([]llm.ToolSpec(nil), specs...)
		}
		out[i].Function.Description = text
	}
	if calls != nil {
		timer := time.NewTimer(describeBudget)
		defer timer.Stop()
		late := false
		for i, c := range calls { // the order does not matter: the budget is for all
			if !late && !c.waited.Load() {
				select {
				case <-c.done:
				case <-timer.C:
					late = true
				}
			}
			select {
			case <-c.done:
				if c.text != "" {
					set(i, k.maskText(c.text))
				}
			default:
				c.waited.Store(true)
				k.log.Warn("tool description not ready in time; using the registered one", "tool", list[i].Name)
			}
		}
	}
	for i := range specs {
		d := specs[i].Function.Description
		if out != nil {
			d = out[i].Function.Description
		}
		if len(d) > MaxDescription {
			set(i, capDescription(d))
		}
	}
	if out == nil {
		return specs
	}
	return out
}

// startDescribe returns the call in flight for tool, starting one if
// there is none.
func (k *Kernel) startDescribe(tool *tools.Tool) *descCall {
	c := &descCall{done: make(chan struct{})}
	if old, loaded := describing.LoadOrStore(tool, c); loaded {
		return old.(*descCall)
	}
	go func() {
		defer close(c.done)
		defer describing.Delete(tool)
		defer func() {
			if r := recover(); r != nil { // the registered text stays
				c.text = ""
				k.log.Warn("tool description panicked; using the registered one", "tool", tool.Name, "panic", fmt.Sprint(r))
			}
		}()
		c.text = tool.Def.DescriptionFunc()
	}()
	return c
}

// capDescription cuts d to MaxDescription bytes, marker included, at a
// rune boundary.
func capDescription(d string) string {
	n := MaxDescription - len(descriptionCut)
	for n > 0 && !utf8.RuneStart(d[n]) {
		n--
	}
	return d[:n] + descriptionCut
}

// Descriptions returns the description each tool of list is sent to the
// model with, as a turn would send it now: the dynamic descriptions asked
// under describeBudget (a late one gives the registered text), masked and
// cut as for the model. `hearth tools` shows these.
func (k *Kernel) Descriptions(list []*tools.Tool) []string {
	specs := make([]llm.ToolSpec, len(list))
	for i, t := range list {
		specs[i].Function.Description = t.Def.Description
	}
	specs = k.describe(list, specs)
	out := make([]string, len(list))
	for i := range specs {
		out[i] = specs[i].Function.Description
	}
	return out
}
