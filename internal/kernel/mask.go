package kernel

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/hearth-agent/hearth/internal/policy"

	"github.com/hearth-agent/hearth/internal/llm"
	"github.com/hearth-agent/hearth/internal/redact"
)

// providerSecrets returns the set of keys the provider knows (llm.Sources'
// API keys, and whatever else Hearth adds to it, such as the daemon's
// token), or nil.
func providerSecrets(provider llm.Provider) *redact.Secrets {
	if p, ok := provider.(interface{ Secrets() *redact.Secrets }); ok {
		return p.Secrets()
	}
	return nil
}

// maskText masks the secrets in text.
func (k *Kernel) maskText(text string) string {
	if k.secrets == nil {
		return text
	}
	return k.secrets.String(text)
}

// maskApprover returns approver asking with the secrets masked in what
// the person is shown (the arguments, the target, the reason): a channel's
// prompt, the web UI's card. The call itself runs with the real
// arguments. Nil stays nil.
func maskApprover(secrets *redact.Secrets, approver policy.Approver) policy.Approver {
	if secrets == nil || approver == nil {
		return approver
	}
	return func(ctx context.Context, req *policy.ApprovalRequest) (policy.Answer, error) {
		shown := *req
		shown.Args = json.RawMessage(secrets.String(string(req.Args)))
		shown.Reason = secrets.String(req.Reason)
		if req.Target != nil {
			t := *req.Target
			t.Label, t.Context = secrets.String(t.Label), secrets.String(t.Context)
			shown.Target = &t
		}
		return approver(ctx, &shown)
	}
}

// maskEvents wraps a turn's emit so that no channel (the terminal, the web
// UI, the OpenAI endpoint, a plugin's sink) is shown a secret of the set:
// the answer's and the reasoning's pieces go through a redact.Stream, which
// holds back the end of a piece that may be the start of a secret until the
// next piece (or the next other event) shows what follows; every other
// event's texts are masked whole.
func maskEvents(secrets *redact.Secrets, emit func(Event)) func(Event) {
	if secrets == nil {
		return emit
	}
	type stream struct {
		kind EventKind
		buf  strings.Builder
		s    *redact.Stream
	}
	text, reasoning := &stream{kind: EventText}, &stream{kind: EventReasoning}
	for _, st := range []*stream{text, reasoning} {
		st.s = redact.NewStream(&st.buf, secrets)
	}
	// send writes a piece through st and emits what the stream let out.
	send := func(st *stream, ev Event, piece string, flush bool) {
		_, _ = st.s.Write([]byte(piece)) // a strings.Builder does not fail
		if flush {
			_ = st.s.Flush()
		}
		if st.buf.Len() == 0 {
			return
		}
		ev.Kind, ev.Text = st.kind, st.buf.String()
		st.buf.Reset()
		emit(ev)
	}
	return func(ev Event) {
		switch ev.Kind {
		case EventText:
			send(reasoning, Event{TraceID: ev.TraceID}, "", true)
			send(text, ev, ev.Text, false)
			return
		case EventReasoning:
			send(text, Event{TraceID: ev.TraceID}, "", true)
			send(reasoning, ev, ev.Text, false)
			return
		}
		send(reasoning, Event{TraceID: ev.TraceID}, "", true)
		send(text, Event{TraceID: ev.TraceID}, "", true)
		ev.Text, ev.Args = secrets.String(ev.Text), secrets.String(ev.Args)
		if ev.Retry != nil {
			r := *ev.Retry
			r.Reason = secrets.String(r.Reason)
			ev.Retry = &r
		}
		if len(ev.Metadata) > 0 {
			md := make(map[string]string, len(ev.Metadata))
			for k, v := range ev.Metadata {
				md[k] = secrets.String(v)
			}
			ev.Metadata = md
		}
		emit(ev)
	}
}
