package kernel

import (
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/sdk"
)

// Correction marks (the PKU document's CONTEXT_MARK): when a fact is
// corrected or deleted, each conversation that was shown the old fact
// (memory recall put it in a request, or a memory tool's result named
// it) gets one line in its next request, once:
//
//	- [已删除] old
//	- [更正] old → new
//
// The kernel keeps which conversation was shown which fact in memory,
// bounded (maxShownFacts); a restart forgets them, and so does a fact
// past the bound, which then gets no mark.

// The strings of the marks and the metadata keys with which the
// built-in memory plugin tells the kernel what it showed and changed
// are sdk's (sdk.MarkDeleted, sdk.MetaMemoryShown...): the plugin may
// import only sdk/. The kernel reads the metadata only from the plugin
// named sdk.MemoryPluginName, a built-in's name no other plugin can
// take.

// maxShownFacts bounds the facts remembered as shown; past it the
// record starts again empty.
const maxShownFacts = 50000

// memoryMarks records the facts each conversation was shown and the
// marks waiting for its next request.
type memoryMarks struct {
	mu      sync.Mutex
	shownIn map[string]map[sessionKey]scope.Scope // fact -> conversations shown it, with their scope
	pending map[sessionKey][]string
}

// shown records that conversation key, of scope conv, was shown facts.
func (m *memoryMarks) shown(key sessionKey, conv scope.Scope, facts ...string) {
	if len(facts) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.shownIn == nil || len(m.shownIn) > maxShownFacts {
		m.shownIn = make(map[string]map[sessionKey]scope.Scope)
	}
	for _, f := range facts {
		f = oneLine(f)
		if f == "" {
			continue
		}
		set := m.shownIn[f]
		if set == nil {
			set = make(map[sessionKey]scope.Scope, 1)
			m.shownIn[f] = set
		}
		set[key] = conv
	}
}

// changed queues the mark for old in every conversation of scope in
// (any scope when in is "": the owner's change) that was shown it:
// deleted when fixed is "", else corrected to fixed. Marks are keyed by
// the fact's text, so a change made in one conversation never reaches
// another scope's conversations, which may have been shown the same
// text from their own entries. It returns how many conversations get
// the mark. The conversation skip (which made the change, and read so
// in the tool's result) gets none.
func (m *memoryMarks) changed(old, fixed string, skip sessionKey, in scope.Scope) int {
	old, fixed = oneLine(old), oneLine(fixed)
	if old == "" || old == fixed {
		return 0
	}
	line := "- " + sdk.MarkDeleted + " " + old
	if fixed != "" {
		line = "- " + sdk.MarkCorrected + " " + old + sdk.MarkArrow + fixed
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	set := m.shownIn[old]
	n := 0
	for key, conv := range set {
		if in != "" && conv != in {
			continue
		}
		delete(set, key)
		if key == skip {
			continue
		}
		n++
		if m.pending == nil {
			m.pending = make(map[sessionKey][]string)
		}
		m.pending[key] = append(m.pending[key], line)
		if fixed != "" {
			// The mark shows the new fact: a later change of it is marked too.
			if m.shownIn[fixed] == nil {
				m.shownIn[fixed] = make(map[sessionKey]scope.Scope, 1)
			}
			m.shownIn[fixed][key] = conv
		}
	}
	if len(set) == 0 {
		delete(m.shownIn, old)
	}
	return n
}

// take returns and forgets the marks waiting for key.
func (m *memoryMarks) take(key sessionKey) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	lines := m.pending[key]
	delete(m.pending, key)
	return lines
}

// MemoryChanged tells the kernel that the fact old was deleted (fixed
// "") or corrected to fixed, by the owner (the CLI, the HTTP API) or a
// tool. Every conversation that was shown old gets the mark line in its
// next request, once. It returns how many conversations will.
func (k *Kernel) MemoryChanged(old, fixed string) int {
	return k.marks.changed(old, fixed, sessionKey{}, "")
}

// noteMemoryResult reads what a memory tool's result says it showed the
// model and what it changed (see sdk.MetaMemoryShown).
func (k *Kernel) noteMemoryResult(t *turnState, p *preparedCall) {
	if p.tool == nil || p.tool.Def.Plugin != sdk.MemoryPluginName || p.result.IsError || len(p.result.Metadata) == 0 {
		return
	}
	md := p.result.Metadata
	for _, f := range lines(md[sdk.MetaMemoryDeleted]) {
		k.marks.changed(f, "", t.s.key, t.conv)
	}
	for _, c := range lines(md[sdk.MetaMemoryCorrected]) {
		if old, fixed, ok := strings.Cut(c, sdk.MarkArrow); ok {
			k.marks.changed(old, fixed, t.s.key, t.conv)
		}
	}
	if !t.sc.NoMemory {
		// After the changes: this conversation reads the result itself.
		k.marks.shown(t.s.key, t.conv, lines(md[sdk.MetaMemoryShown])...)
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
