package kernel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/store"
	"github.com/hearth-agent/hearth/sdk/toolcall"
)

// History keeps the sessions' messages; *store.Store is the one Hearth
// uses, and storetest.Faulty fails on cue. The kernel converts between
// the provider's messages and the store's records (see toRecords).
type History interface {
	// Session returns the session of channel and chatID, creating it.
	Session(ctx context.Context, channel, chatID string) (store.Session, error)
	// AppendMessages adds msgs to the end of a session, all or none.
	AppendMessages(ctx context.Context, sessionID int64, msgs []store.Message) error
	// RecentMessages returns up to limit of the latest messages, in
	// order, starting at a user message.
	RecentMessages(ctx context.Context, sessionID int64, limit int) ([]store.Message, error)
	// ClearSession deletes a session's messages.
	ClearSession(ctx context.Context, sessionID int64) error
}

var _ History = (*store.Store)(nil)

// appendMessages stores msgs at the end of a session's history.
func (k *Kernel) appendMessages(ctx context.Context, sessionID int64, msgs []llm.Message) error {
	recs, err := toRecords(msgs)
	if err != nil {
		return err
	}
	return k.store.AppendMessages(ctx, sessionID, recs)
}

// recentMessages reads up to limit of a session's latest messages.
func (k *Kernel) recentMessages(ctx context.Context, sessionID int64, limit int) ([]llm.Message, error) {
	recs, err := k.store.RecentMessages(ctx, sessionID, limit)
	if err != nil {
		return nil, err
	}
	return fromRecords(recs)
}

// toRecords converts messages to the store's records, the tool calls as
// their JSON.
func toRecords(msgs []llm.Message) ([]store.Message, error) {
	recs := make([]store.Message, len(msgs))
	for i, m := range msgs {
		recs[i] = store.Message{Role: m.Role, Content: m.Content, Reasoning: m.Reasoning,
			ToolCallID: m.ToolCallID, Name: m.Name}
		if len(m.ToolCalls) > 0 {
			b, err := json.Marshal(m.ToolCalls)
			if err != nil {
				return nil, fmt.Errorf("encoding tool calls: %w", err)
			}
			recs[i].ToolCalls = b
		}
	}
	return recs, nil
}

// fromRecords converts the store's records back to messages.
func fromRecords(recs []store.Message) ([]llm.Message, error) {
	msgs := make([]llm.Message, len(recs))
	for i, r := range recs {
		msgs[i] = llm.Message{Role: r.Role, Content: r.Content, Reasoning: r.Reasoning,
			ToolCallID: r.ToolCallID, Name: r.Name}
		if len(r.ToolCalls) > 0 {
			if err := json.Unmarshal(r.ToolCalls, &msgs[i].ToolCalls); err != nil {
				return nil, fmt.Errorf("decoding stored tool calls: %w", err)
			}
		}
	}
	return msgs, nil
}

// ErrNotSaved means a message of the turn could not be stored (a full
// disk, a broken database). The turn fails with it: an answer that is not
// remembered must not look like one that is.
var ErrNotSaved = errors.New("the conversation could not be saved")

// The notes that close a turn that did not finish. They are stored as the
// turn's answer, so the model of the next turn sees what happened.
const (
	interruptedNote = "[interrupted: this turn was stopped before it finished]"
	failedNote      = "[failed: this turn ended with an error before it finished]"
	tooLongNote     = "[failed: the message was too long for the model's context window]"
	// leftOutMessage replaces a user message answered by tooLongNote when
	// history is sent, so one oversized paste does not fail every turn.
	leftOutMessage = "[a message too long for the model's context window was left out]"
)

// interruptedResult answers a call whose result was never stored: Hearth
// stopped (or crashed) while it ran.
var interruptedResult = toolcall.ErrorResult(errNotRun,
	"interrupted: Hearth stopped while this call was running; it may or may not have taken effect").Content

// Writing as the turn goes: the user's message is stored before the model
// is called (saveUser), each assistant tool-call message before its calls
// run and each tool result when it is final (storeMessages, then remember
// for the in-memory copy), the answer or a note at the end (save).

// userMessage is the message a turn answers. A plugin's input is marked
// with who sent it, "[message from plugin memo] …" (or `… plugin relay
// for user "alice"] …` for a relay), in the request and in the history, so
// that no later turn reads it as the words of the person in the session.
func userMessage(in Input, text string) llm.Message {
	if in.Plugin == "" {
		return llm.Message{Role: "user", Content: text}
	}
	from := "plugin " + in.Plugin
	if in.UserID != "" {
		from += fmt.Sprintf(" for user %q", in.UserID) // quoted: a name cannot close the label
	}
	if in.GroupID != "" {
		from += fmt.Sprintf(" in group %q", in.GroupID)
	}
	return llm.Message{Role: "user", Content: "[message from " + from + "] " + text}
}

// saveUser stores the user's message before the model sees it.
func (k *Kernel) saveUser(ctx context.Context, t *turnState) error {
	if err := k.save(ctx, t, t.user); err != nil {
		return err
	}
	t.userSaved = !t.sc.NoMemory
	return nil
}

// save stores msgs and appends them to the session's history in memory,
// unless the input asked not to be remembered.
func (k *Kernel) save(ctx context.Context, t *turnState, msgs ...llm.Message) error {
	if t.sc.NoMemory {
		return nil
	}
	if err := k.loadHistory(ctx, t.s); err != nil {
		return fmt.Errorf("%w: %w", ErrNotSaved, err)
	}
	if err := k.storeMessages(ctx, t, msgs...); err != nil {
		return err
	}
	k.remember(t, msgs...)
	return nil
}

// storeMessages writes msgs to the store only; it is safe to call from the
// goroutines running tools. The first failure is kept for saveError.
func (k *Kernel) storeMessages(ctx context.Context, t *turnState, msgs ...llm.Message) error {
	if t.sc.NoMemory || k.store == nil || !t.s.historyLoaded {
		return nil
	}
	err := k.appendMessages(context.WithoutCancel(ctx), t.s.storeID, msgs)
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%w: %w", ErrNotSaved, err)
	t.setSaveError(err)
	return err
}

// setSaveError keeps err if it is the turn's first failure to store.
func (t *turnState) setSaveError(err error) {
	t.saveMu.Lock()
	if t.saveErr == nil {
		t.saveErr = err
	}
	t.saveMu.Unlock()
}

// saveError returns the first failure to store a message of the turn.
func (t *turnState) saveError() error {
	t.saveMu.Lock()
	defer t.saveMu.Unlock()
	return t.saveErr
}

// remember appends msgs to the session's history in memory.
func (k *Kernel) remember(t *turnState, msgs ...llm.Message) {
	if t.sc.NoMemory {
		return
	}
	t.s.history = trimHistory(append(t.s.history, msgs...), k.cfg.HistoryMessages)
}

// loadHistory reads the session's history from the store once. A turn
// that did not finish (Hearth was killed during it) is closed, in the
// store too: its calls without a result are answered as interrupted, and
// the turn ends with the interrupted note.
func (k *Kernel) loadHistory(ctx context.Context, s *session) error {
	if s.historyLoaded {
		return nil
	}
	if k.store != nil {
		sess, err := k.store.Session(ctx, s.key.channel, s.key.chat)
		if err != nil {
			return err
		}
		hist, err := k.recentMessages(ctx, sess.ID, k.cfg.HistoryMessages)
		if err != nil {
			return err
		}
		hist, tail := closeTurns(hist)
		if len(tail) > 0 {
			if err := k.appendMessages(ctx, sess.ID, tail); err != nil {
				return fmt.Errorf("closing the interrupted turn: %w", err)
			}
		}
		s.storeID, s.history = sess.ID, hist
	}
	s.historyLoaded = true
	return nil
}

// closeTurns returns h in a shape every provider accepts: each assistant
// message with tool calls is followed by one result per call (missing
// ones answered as interrupted, stray ones dropped), and each user message
// is answered before the next (an unanswered turn gets the interrupted
// note). tail is what had to be added at the end, for the store.
func closeTurns(h []llm.Message) (out, tail []llm.Message) {
	out = make([]llm.Message, 0, len(h)+2)
	var pending []string // ids of calls still without a result
	open := false        // the latest user message has no answer yet
	lastUser := -1       // index in out of the latest user message
	closeCalls := func() {
		for _, id := range pending {
			out = append(out, llm.Message{Role: "tool", ToolCallID: id, Content: interruptedResult})
		}
		pending = nil
	}
	for _, m := range h {
		if m.Role != "tool" {
			closeCalls()
		}
		switch m.Role {
		case "user":
			if open {
				out = append(out, llm.Message{Role: "assistant", Content: interruptedNote})
			}
			open, lastUser = true, len(out)
		case "assistant":
			open = len(m.ToolCalls) > 0
			if m.Content == tooLongNote && lastUser >= 0 {
				out[lastUser].Content = leftOutMessage
			}
			for _, c := range m.ToolCalls {
				pending = append(pending, c.ID)
			}
		case "tool":
			i := indexOf(pending, m.ToolCallID)
			if i < 0 {
				continue // no call asked for it
			}
			pending = append(pending[:i], pending[i+1:]...)
		}
		out = append(out, m)
	}
	n := len(out)
	closeCalls()
	if open {
		out = append(out, llm.Message{Role: "assistant", Content: interruptedNote})
	}
	return out, out[n:len(out):len(out)]
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}
