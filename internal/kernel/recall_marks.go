package kernel

import (
	"context"
	"strings"
	"sync"

	"github.com/hearth-agent/hearth/internal/scope"
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

// The CONTEXT_MARK strings. A fact containing MarkArrow is refused by
// the memory plugin: the line would not read back.
const (
	MarkDeleted   = "[已删除]"
	MarkCorrected = "[更正]"
	MarkArrow     = " → "
)

// The tool result metadata (sdk's ResultMetadata) with which the
// built-in memory plugin tells the kernel what it showed and changed;
// each value is facts one per line, a correction as "old → new". The
// kernel reads them only from the plugin named MemoryPlugin, a
// built-in's name no other plugin can take.
const (
	MemoryPlugin      = "memories"
	MetaMemoryShown   = "memory.shown"
	MetaMemoryDeleted = "memory.deleted"
	MetaMemoryFixed   = "memory.corrected"
)

// maxShownFacts bounds the facts remembered as shown; past it the
// record starts again empty.
const maxShownFacts = 50000

// memoryMarks records the facts each conversation was shown and the
// marks waiting for its next request.
type memoryMarks struct {
	mu      sync.Mutex
	shownIn map[string]map[sessionKey]scope.Scope // fact -> conversations shown it, with their scopes
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

// changed queues the mark for old in every conversation that was shown
// it: deleted when fixed is "", else corrected to fixed. It returns how
// many conversations get the mark. The conversation skip (which made
// the change, and read so in the tool's result) gets none. A change made
// in a conversation of scope in (a tool's) marks only the conversations
// of that scope: the same words in another scope are another entry, not
// changed; in "" (the owner's: the CLI, the HTTP API) marks them all.
func (m *memoryMarks) changed(old, fixed string, skip sessionKey, in scope.Scope) int {
	old, fixed = oneLine(old), oneLine(fixed)
	if old == "" || old == fixed {
		return 0
	}
	line := "- " + MarkDeleted + " " + old
	if fixed != "" {
		line = "- " + MarkCorrected + " " + old + MarkArrow + fixed
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	set := m.shownIn[old]
	n := 0
	for key, conv := range set {
		if in != "" && conv != in {
			continue // it saw another scope's entry, which stays
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
// model and what it changed (see MetaMemoryShown).
func (k *Kernel) noteMemoryResult(ctx context.Context, t *turnState, p *preparedCall) {
	if p.tool == nil || p.tool.Def.Plugin != MemoryPlugin || p.result.IsError || len(p.result.Metadata) == 0 {
		return
	}
	md := p.result.Metadata
	conv := k.conversationScope(ctx, t)
	for _, f := range lines(md[MetaMemoryDeleted]) {
		k.marks.changed(f, "", t.s.key, conv)
	}
	for _, c := range lines(md[MetaMemoryFixed]) {
		if old, fixed, ok := strings.Cut(c, MarkArrow); ok {
			k.marks.changed(old, fixed, t.s.key, conv)
		}
	}
	if !t.sc.NoMemory {
		// After the changes: this conversation reads the result itself.
		k.marks.shown(t.s.key, conv, lines(md[MetaMemoryShown])...)
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
