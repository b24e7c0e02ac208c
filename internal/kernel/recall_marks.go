package kernel

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-agent/hearth/internal/scope"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// Correction marks (the PKU document's CONTEXT_MARK): when a fact is
// corrected or deleted, each conversation that was shown the old fact
// (memory recall put it in a request, or a memory tool's result named
// it) gets one line in its next request, once:
//
//	- [已删除] old
//	- [更正] old → new
//
// A change reaches the conversations whose scope could see the changed
// entry: those of its scope, or every one for an entry of Global. What
// each conversation was shown, and the marks waiting, are kept in the
// store when the kernel's History is a MarkStore (the SQLite store is):
// a change made by any process on the data directory, `hearth memory`
// run with no serve among them, reaches the conversation's next request
// once, across restarts. The store bounds them (store.MaxShownPerChat
// facts a conversation, store.MaxShownFacts in all); a fact past the
// bounds gets no mark. A kernel whose History is not a MarkStore (none,
// or a test's fake) marks nothing.

// MarkStore keeps the correction marks; *store.Store is one. The
// kernel's History may implement it.
type MarkStore interface {
	// NoteShown records that chat, of scope conv, was shown facts.
	NoteShown(ctx context.Context, chat store.Chat, conv string, facts []string) error
	// FactChanged queues line for the conversations of scope in (every
	// one for "" or Global) shown fact, except skip; then, if not "",
	// counts as shown in them; untrusted says the line holds text the
	// owner did not write. It returns how many get the line.
	FactChanged(ctx context.Context, fact, in string, skip store.Chat, line, then string, untrusted bool) (int, error)
	// Marks returns the lines waiting for chat in a turn of scope conv,
	// oldest first.
	Marks(ctx context.Context, chat store.Chat, conv string) ([]store.Mark, error)
	// MarksGiven deletes those lines up to the mark upTo.
	MarksGiven(ctx context.Context, chat store.Chat, conv string, upTo int64) error
}

var _ MarkStore = (*store.Store)(nil)

// The strings of the marks and the metadata keys with which the
// built-in memory plugin tells the kernel what it showed and changed
// are sdk's (sdk.MarkDeleted, sdk.MetaMemoryShown...): the plugin may
// import only sdk/. The kernel reads the metadata only from the plugin
// named sdk.MemoryPluginName, a built-in's name no other plugin can
// take.

// markLine is the mark of old deleted (fixed "") or corrected to fixed.
func markLine(old, fixed string) string {
	if fixed == "" {
		return "- " + sdk.MarkDeleted + " " + old
	}
	return "- " + sdk.MarkCorrected + " " + old + sdk.MarkArrow + fixed
}

// markText is a fact as the marks know it: on one line, and cut as
// recall shows it (cutItem), so that a long fact recall showed is
// found again when it changes, and a mark is never longer than an item.
func markText(s string) string { return cutItem(s) }

// markStore is the store that keeps the marks, nil for none.
func (k *Kernel) markStore() MarkStore {
	ms, _ := k.store.(MarkStore)
	return ms
}

func chatOf(key sessionKey) store.Chat { return store.Chat{Channel: key.channel, Chat: key.chat} }

// noteShown records that the conversation key, of scope conv, was shown
// facts.
func (k *Kernel) noteShown(ctx context.Context, key sessionKey, conv scope.Scope, facts ...string) {
	var clean []string
	for _, f := range facts {
		if f = markText(f); f != "" {
			clean = append(clean, f)
		}
	}
	if len(clean) == 0 {
		return
	}
	ms := k.markStore()
	if ms == nil {
		return
	}
	if err := ms.NoteShown(context.WithoutCancel(ctx), chatOf(key), string(conv), clean); err != nil {
		k.log.Warn("memory marks: recording the facts shown failed; a change of them will not be marked",
			"session", key, "err", err)
	}
}

// takeMarks returns the marks waiting for t's conversation; they are
// forgotten once a model answers the request that holds them
// (marksGiven): a request that fails, or a process that dies before
// sending it, tells the model nothing, and the next request has them.
func (k *Kernel) takeMarks(ctx context.Context, t *turnState) []store.Mark {
	ms := k.markStore()
	if ms == nil {
		return nil
	}
	marks, err := ms.Marks(ctx, chatOf(t.s.key), string(t.conv))
	if err != nil {
		k.log.Warn("memory marks: reading the marks due failed", "session", t.s.key, "err", err)
	}
	if len(marks) > 0 {
		t.marksUpTo = marks[len(marks)-1].ID
	}
	return marks
}

// marksGiven forgets the marks t's request held, once a model answered
// it (the older ones left out for the budget with them).
func (k *Kernel) marksGiven(ctx context.Context, t *turnState) {
	if t.marksUpTo == 0 {
		return
	}
	upTo := t.marksUpTo
	t.marksUpTo = 0
	if ms := k.markStore(); ms != nil {
		if err := ms.MarksGiven(context.WithoutCancel(ctx), chatOf(t.s.key), string(t.conv), upTo); err != nil {
			k.log.Warn("memory marks: forgetting the marks given failed; they may come again", "session", t.s.key, "err", err)
		}
	}
}

// factChanged queues the mark of old deleted (fixed "") or corrected to
// fixed for the conversations of scope in that were shown old, except
// skip (which made the change and read so in its tool's result); they
// count as shown fixed from then on. untrusted says the owner did not
// write the change (the memory plugin made it where a guest may have
// asked): the turn that shows the mark is tainted. It returns how many
// get the mark.
func (k *Kernel) factChanged(ctx context.Context, old, fixed string, skip sessionKey, in scope.Scope, untrusted bool) (int, error) {
	old, fixed = markText(old), markText(fixed)
	if old == "" || old == fixed {
		return 0, nil
	}
	ms := k.markStore()
	if ms == nil {
		return 0, nil
	}
	return ms.FactChanged(context.WithoutCancel(ctx), old, string(in), chatOf(skip), markLine(old, fixed), fixed, untrusted)
}

// MemoryChanged tells the kernel that the fact old, an entry of scope in
// ("" when the caller cannot say, which reaches every scope) written by
// writer ("" the owner's, or not known), was deleted (fixed "") or
// corrected to fixed by the owner (the CLI, the HTTP API). Every
// conversation that was shown old and could see the entry (its
// scope's, or every one for Global) gets the mark line in its next
// request, once, whichever process serves it next. The line repeats
// old: when the entry is not the owner's (trustedEntry), the turn that
// shows it is tainted, as one that recalled the entry was. It returns
// how many conversations will.
func (k *Kernel) MemoryChanged(ctx context.Context, old, fixed string, in scope.Scope, writer string) (int, error) {
	untrusted := writer != "" && !trustedEntry(in, writer, in)
	return k.factChanged(ctx, old, fixed, sessionKey{}, in, untrusted)
}

// noteMemoryResult reads what a memory tool's result says it showed the
// model and what it changed (see sdk.MetaMemoryShown); the facts shown
// are recorded when shown is true (a turn's call: a direct call's
// caller has no next request to tell). The plugin changes entries of
// the conversation's scope only.
func (k *Kernel) noteMemoryResult(ctx context.Context, t *turnState, p *preparedCall, shown bool) {
	if p.tool == nil || p.tool.Def.Plugin != sdk.MemoryPluginName || p.result.IsError || len(p.memMeta) == 0 {
		return
	}
	md := p.memMeta // as stored: p.result's is masked (maskMemoryResult)
	// The plugin's entries are the owner's in the owner's conversations
	// only (trustedEntry): a change made elsewhere (a group, a guest's
	// conversation) carries text the owner did not write.
	untrusted := !trustedEntry(t.conv, sdk.MemoryPluginName, t.conv)
	// The conversation whose model read the result is not told again; a
	// direct call's caller is no conversation's model.
	skip := t.s.key
	if !shown {
		skip = sessionKey{}
	}
	for _, f := range lines(md[sdk.MetaMemoryDeleted]) {
		if _, err := k.factChanged(ctx, f, "", skip, t.conv, untrusted); err != nil {
			k.log.Warn("memory marks: queueing a mark failed", "session", t.s.key, "err", err)
		}
	}
	for _, c := range lines(md[sdk.MetaMemoryCorrected]) {
		if old, fixed, ok := strings.Cut(c, sdk.MarkArrow); ok {
			if _, err := k.factChanged(ctx, old, fixed, skip, t.conv, untrusted); err != nil {
				k.log.Warn("memory marks: queueing a mark failed", "session", t.s.key, "err", err)
			}
		}
	}
	if shown && !t.sc.NoMemory {
		// After the changes: this conversation reads the result itself.
		k.noteShown(ctx, t.s.key, t.conv, lines(md[sdk.MetaMemoryShown])...)
	}
}

// maskMemoryResult masks what looks like a key in a result of the
// built-in memory plugin before the model, the stages, the events and
// the history get it, as recall does: a credential remembered once is
// not repeated into the conversation by memories__recall or
// memories__search, nor handed to another plugin's after_toolcall
// handler. The value the stages get is the masked text (the plugin's
// own value would marshal the facts as stored). The metadata as it came
// is kept in p.memMeta, for the marks only; the result's is masked. The
// masking is the kernel's, so it holds however the plugin runs.
func (k *Kernel) maskMemoryResult(p *preparedCall) {
	if p.tool == nil || p.tool.Def.Plugin != sdk.MemoryPluginName {
		return
	}
	p.result.Content = k.maskKeys(p.result.Content)
	switch {
	case p.result.Value == nil:
	case json.Valid([]byte(p.result.Content)):
		p.result.Value = toolcall.ValidJSON(p.result.Content)
	default:
		p.result.Value = p.result.Content
	}
	if p.result.MemoryText != nil {
		text := k.maskKeys(*p.result.MemoryText)
		p.result.MemoryText = &text
	}
	p.memMeta = p.result.Metadata
	if len(p.memMeta) > 0 {
		md := make(map[string]string, len(p.memMeta))
		for key, v := range p.memMeta {
			md[key] = k.maskKeys(v)
		}
		p.result.Metadata = md
	}
}

func lines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
