// chat.js: the chat page: conversations, the thread with streamed
// Markdown, reasoning, tool calls and approval cards, and the composer.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post, del } from './api.js';
import { Icon, Logo } from './icons.js';
import { t } from './i18n.js';
import { useSignal } from './state.js';
import { approvals, navigate, onEvent } from './store.js';
import { render as markdown } from './markdown.js';
import { ApprovalCard } from './approval.js';
import { Json, Link, channelName, when } from './ui.js';
import { usePromptComposer } from './prompts.js';
import { money, tokens, usageOf } from './money.js';
import { apply } from './turn.js';

// thread turns the stored messages into display items: a user bubble, or
// an assistant answer made of text and tool parts (one per turn).
export function thread(messages) {
  const items = [];
  const tools = new Map();
  let cur = null;
  for (const m of messages || []) {
    if (m.role === 'user') {
      items.push({ kind: 'user', text: m.content });
      cur = null;
    } else if (m.role === 'assistant') {
      if (!cur) { cur = { kind: 'assistant', parts: [], reasoning: '', done: true }; items.push(cur); }
      if (m.reasoning) cur.reasoning += m.reasoning;
      // The kernel ends an unfinished turn with a note for the model
      // ("[interrupted: ...]", "[failed: ...]"); people see a mark.
      let text = m.content || '';
      const note = /\s*\[(interrupted|failed): [^\]]*\]\s*$/.exec(text);
      if (note) {
        if (note[1] === 'interrupted') cur.interrupted = true; else cur.error = t('chat.failed');
        text = text.slice(0, note.index);
      }
      if (text) cur.parts.push({ type: 'text', text });
      for (const c of m.tool_calls || []) {
        const p = { type: 'tool', id: c.id, tool: c.name, arguments: c.arguments, status: 'done' };
        tools.set(c.id, p);
        cur.parts.push(p);
      }
    } else if (m.role === 'tool') {
      const p = tools.get(m.tool_call_id);
      if (p) p.result = m.content;
    }
  }
  return items;
}

// linkTraces gives each stored answer the trace of its turn: the traces
// (newest first) are matched in order to the user messages that started
// them.
export function linkTraces(items, traces) {
  const queue = [...traces].reverse();
  let q = 0;
  items.forEach((it, n) => {
    if (it.kind !== 'user') return;
    const start = (it.text || '').slice(0, 200);
    const k = queue.findIndex((x, i) => i >= q && x.input === start);
    if (k < 0) return;
    q = k + 1;
    const next = items[n + 1];
    if (next && next.kind === 'assistant') {
      next.trace = queue[k].id;
      next.usage = usageOf(null, queue[k]);
    }
  });
  return items;
}

// keepPartial puts the text of partial, an answer stopped (or failed)
// while it streamed, into the history's last answer when the stored one
// has only the interruption note: Stop keeps what was already shown.
export function keepPartial(items, partial) {
  if (!partial || !partial.parts.some((p) => p.type === 'text' && p.text)) return items;
  const last = items[items.length - 1];
  if (!last || last.kind !== 'assistant' || last.parts.some((p) => p.type === 'text' && p.text)) return items;
  last.parts = partial.parts.map((p) => ({ ...p, status: p.status === 'running' ? 'failed' : p.status }));
  if (!last.reasoning && partial.reasoning) last.reasoning = partial.reasoning;
  if (partial.interrupted) last.interrupted = true;
  return items;
}

// merge joins the history and the live turn: a message the history
// already holds is not shown twice, nor is an answer still streaming that
// the history holds in part.
function merge(history, live) {
  if (!live.length) return history;
  if (live[0].kind === 'user') {
    let u = history.length - 1;
    while (u >= 0 && history[u].kind !== 'user') u--;
    if (u >= 0 && history[u].text === live[0].text) return [...history.slice(0, u), ...live];
  }
  const h = history[history.length - 1];
  if (live[0].kind === 'assistant' && h && h.kind === 'assistant') {
    // The history, read after the answer was stored, holds the answer
    // the live turn is streaming (or has streamed): show it once.
    const stored = textOf(h), streamed = textOf(live[0]);
    if (stored && streamed && (stored.startsWith(streamed) || streamed.startsWith(stored))) {
      return [...history.slice(0, -1), ...live];
    }
  }
  return [...history, ...live];
}

// textOf is the text an answer shows.
function textOf(a) {
  return a.parts.filter((p) => p.type === 'text').map((p) => p.text || '').join('');
}

// ToolProgress is a running call's progress: a bar when the total is
// known, the count and the tool's message.
function ToolProgress({ pr }) {
  const total = pr.total > 0 ? pr.total : 0;
  const count = total ? `${pr.done}/${total}` : String(pr.done);
  return html`<div class="tool-progress small muted" data-testid="tool-progress">
    ${total ? html`<progress max=${total} value=${Math.min(pr.done, total)} />` : ''}
    <span>${count}${pr.message ? ' · ' + pr.message : ''}</span>
  </div>`;
}

function ToolPart({ p }) {
  const icon = p.status === 'running' ? 'clock' : p.status === 'failed' ? 'alert' : 'check';
  return html`<details class=${'tool ' + p.status} data-testid="tool-call">
    <summary><${Icon} name=${icon} /> <code>${p.tool}</code> <span class="muted small">${t('tool.' + p.status)}</span>
      ${p.status === 'running' && p.progress && html`<${ToolProgress} pr=${p.progress} />`}</summary>
    <div class="tool-body">
      <div class="small muted">${t('tool.args')}</div><${Json} value=${p.arguments || '{}'} />
      ${p.result !== undefined && html`<div class="small muted">${t('tool.result')}</div><${Json} value=${p.result} />`}
    </div>
  </details>`;
}

// AnswerUsage is what an answer's model calls used: tokens in (of which
// cached) and out, and what they cost when the price is known.
function AnswerUsage({ u }) {
  const vars = { i: tokens(u.input), c: tokens(u.cached), o: tokens(u.output) };
  const cost = money(u.cost, u.currency);
  return html`<span class="usage" data-testid="answer-usage" title=${t('chat.usageExact', { i: u.input, c: u.cached, o: u.output })}>
    ${t(u.cached ? 'chat.usageCached' : 'chat.usage', vars)}${cost && html` · <b data-testid="answer-cost">${cost}</b>`}</span>`;
}

// Notice says that a model call failed before its answer began and is
// tried again after a wait, or that a fallback source answers instead.
function Notice({ n }) {
  const s = n.afterMs < 1000 ? (n.afterMs / 1000).toFixed(1) : String(Math.round(n.afterMs / 1000));
  return html`<p class="muted small notice" data-testid="answer-notice"><${Icon} name="alert" />
    ${n.source ? t('chat.fallback', { reason: n.reason, source: n.source }) : t('chat.retrying', { reason: n.reason, s })}</p>`;
}

function Answer({ a }) {
  return html`<div class="msg assistant" data-testid="answer">
    ${a.reasoning && html`<details class="reasoning" open=${!a.done && !a.parts.length}>
      <summary><${Icon} name="bulb" /> ${t('chat.reasoning')}</summary><div class="md" dangerouslySetInnerHTML=${{ __html: markdown(a.reasoning) }} /></details>`}
    ${a.parts.map((p) => (p.type === 'text'
      ? html`<div class="md" dangerouslySetInnerHTML=${{ __html: markdown(p.text) }} />`
      : html`<${ToolPart} p=${p} />`))}
    ${a.notice && html`<${Notice} n=${a.notice} />`}
    ${!a.done && !a.parts.length && !a.reasoning && html`<div class="typing"><span /><span /><span /></div>`}
    ${a.interrupted && html`<p class="muted small interrupted-mark" data-testid="interrupted"><${Icon} name="stop" /> ${t('chat.interrupted')}</p>`}
    ${a.error && html`<p class="error small">${a.error}</p>`}
    ${a.done && (a.trace || a.usage) && html`<div class="meta small muted">
      ${a.usage && html`<${AnswerUsage} u=${a.usage} />`}
      ${a.trace && html` <${Link} href=${'/traces/' + a.trace} data-testid="trace-link"><${Icon} name="traces" /> ${t('chat.trace')}</${Link}>`}
    </div>`}
  </div>`;
}

function Sessions({ list, id, onNew }) {
  return html`<aside class="sessions">
    <button class="primary wide" onClick=${onNew} data-testid="new-chat"><${Icon} name="plus" /> ${t('chat.new')}</button>
    <div class="list">
      ${list && !list.length && html`<p class="muted small pad">${t('chat.empty')}</p>`}
      ${(list || []).map((s) => html`<${Link} key=${s.id} href=${'/chat/' + s.id} class=${'session' + (String(s.id) === id ? ' active' : '')}>
        <span class="title">${s.title || t('chat.untitled')}</span>
        <span class="small muted">${s.busy ? '● ' + t('chat.busy') : when(s.updated_at)}${s.channel && s.channel !== 'web' ? ' · ' + channelName(s.channel) : ''}</span>
      </${Link}>`)}
    </div>
  </aside>`;
}

// Chat is the chat page for session id ('' for a new one).
export function Chat({ id }) {
  const [sessions, setSessions] = useState(null);
  // history is the stored conversation; live the turn streaming now
  // (and a message just sent). The page shows both; when a turn ends the
  // history is read again and replaces the live part it now holds.
  const [history, setHistory] = useState([]);
  const [live, setLive] = useState([]);
  const [busy, setBusy] = useState(false);
  const [text, setText] = useState('');
  const [err, setErr] = useState('');
  const pending = useSignal(approvals);
  const idRef = useRef(id);
  const liveRef = useRef(live);
  const keepLive = useRef('');
  const end = useRef(null);
  idRef.current = id;
  const putLive = (l) => { liveRef.current = l; setLive(l); };

  const loadSessions = () => get('/v1/sessions').then((r) => setSessions(r.sessions || []), (e) => setErr(e.message));
  // loadHistory reads the stored conversation; the first cut live items
  // are then in it and are dropped. partial is an interrupted answer as
  // it streamed: the server stores only the interruption note, so the
  // text seen so far is kept from here.
  const loadHistory = (sid, cut, partial) => Promise.all([get(`/v1/sessions/${sid}/messages`),
    get(`/v1/traces?limit=200&session_id=${sid}`).catch(() => ({ traces: [] }))]).then(([r, tr]) => {
    if (idRef.current !== sid) return;
    setHistory(keepPartial(linkTraces(thread(r.messages), tr.traces || []), partial));
    putLive(liveRef.current.slice(cut));
  }, (e) => setErr(e.message));
  useEffect(() => { loadSessions(); }, []);
  useEffect(() => {
    setHistory([]); setErr('');
    if (keepLive.current !== id) { putLive([]); setBusy(false); }
    keepLive.current = '';
    if (!id) return;
    get(`/v1/sessions/${id}`).then((s) => s.busy && setBusy(true), () => {});
    loadHistory(id, 0);
  }, [id]);
  useEffect(() => onEvent((ev, d) => {
    if (ev === 'turn.finished' || ev === 'turn.started' || ev === 'turn.interrupted' || ev === 'error') loadSessions();
    if (!idRef.current || String(d.session_id) !== idRef.current) return;
    const next = liveRef.current.map((i) => (i.kind === 'assistant' ? { ...i, parts: i.parts.map((p) => ({ ...p })) } : { ...i }));
    if (!apply(next, ev, d)) return;
    putLive(next);
    if (ev === 'turn.started') setBusy(true);
    if (ev === 'turn.finished' || ev === 'turn.interrupted' || ev === 'error') {
      setBusy(false);
      const a = next[next.length - 1];
      loadHistory(idRef.current, next.length, ev !== 'turn.finished' && a && a.kind === 'assistant' ? a : null);
    }
  }), []);
  const items = merge(history, live);
  useEffect(() => { end.current && end.current.scrollIntoView({ block: 'end' }); }, [items.length, live, pending.length]);

  const newChat = async () => {
    try { const s = await post('/v1/sessions', {}); await loadSessions(); navigate('/chat/' + s.id); } catch (e) { setErr(e.message); }
  };
  const send = async (e) => {
    e && e.preventDefault();
    const msg = text.trim();
    if (!msg) return;
    if (await prompts.submit(msg)) return; // a prompt command: its text is sent
    await sendText(msg);
  };
  // sendText sends msg as the user's message, opening a session first
  // when there is none. untrusted, when set, names where msg came from (a
  // prompt's text): the server taints the turn from its start.
  const sendText = async (msg, untrusted) => {
    setErr('');
    let sid = id;
    try {
      if (!sid) {
        const s = await post('/v1/sessions', {});
        sid = String(s.id);
        idRef.current = sid;
        keepLive.current = sid;
        navigate('/chat/' + sid);
      }
      putLive([...liveRef.current, { kind: 'user', text: msg, pending: true }]);
      setText('');
      setBusy(true);
      await post(`/v1/sessions/${sid}/messages`, untrusted ? { text: msg, interrupt: busy, untrusted } : { text: msg, interrupt: busy });
    } catch (e2) { setErr(e2.message); setBusy(false); }
  };
  // stop asks the server to interrupt the turn in flight (POST
  // /v1/sessions/{id}/interrupt, {"interrupted": true|false}); the stream
  // then says turn.interrupted, which marks the answer and ends busy.
  const [stopping, setStopping] = useState(false);
  const stop = async () => {
    if (!id) return;
    setErr(''); setStopping(true);
    try {
      const r = await post(`/v1/sessions/${id}/interrupt`, {});
      if (r && r.interrupted === false) setBusy(false); // nothing was running any more
    } catch (e) { setErr(e.status === 404 || e.status === 405 ? t('chat.stopUnsupported') : e.message); }
    setStopping(false);
  };
  const prompts = usePromptComposer({ text, setText, send: sendText, setErr });
  const key = (e) => { if (prompts.onKey(e)) return; if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) send(e); };
  const mine = pending.filter((a) => String(a.session_id) === id);
  const current = (sessions || []).find((s) => String(s.id) === id);

  return html`<div class="chat">
    <${Sessions} list=${sessions} id=${id} onNew=${newChat} />
    <section class="thread">
      <div class="thread-head">
        <strong>${current ? current.title || t('chat.untitled') : t('chat.new')}</strong>
        ${current && html`<button class="ghost small" onClick=${async () => {
          if (!confirm(t('chat.deleteConfirm'))) return;
          try { await del('/v1/sessions/' + id); await loadSessions(); navigate('/chat'); } catch (e) { setErr(e.message); }
        }}><${Icon} name="trash" /> ${t('chat.delete')}</button>`}
      </div>
      <div class="messages" data-testid="messages">
        ${!items.length && html`<div class="hello"><${Logo} size=${56} /><h2>${t('chat.hello')}</h2></div>`}
        ${items.map((i) => (i.kind === 'user'
          ? html`<div class="msg user" data-testid="user-message">${i.text}</div>`
          : html`<${Answer} a=${i} />`))}
        ${mine.map((a) => html`<${ApprovalCard} key=${a.id} approval=${a} />`)}
        <div ref=${end} />
      </div>
      ${err && html`<p class="error small pad">${err}</p>`}
      <form class="composer" onSubmit=${send}>
        ${prompts.view}
        <textarea rows="1" data-testid="composer" placeholder=${t('chat.placeholder')} value=${text}
          onInput=${(e) => setText(e.target.value)} onKeyDown=${key} />
        ${busy && id && html`<button type="button" class="stop" data-testid="stop" onClick=${stop} disabled=${stopping}
          title=${t('chat.stop')} aria-label=${t('chat.stop')}><${Icon} name="stop" /> <span>${t('chat.stop')}</span></button>`}
        <button class="primary send" data-testid="send" disabled=${!text.trim()} title=${busy ? t('chat.interrupt') : t('chat.send')}><${Icon} name="send" /> <span>${busy ? t('chat.interrupt') : t('chat.send')}</span></button>
      </form>
    </section>
  </div>`;
}
