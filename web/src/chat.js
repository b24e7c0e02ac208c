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
import { Json, Link, when } from './ui.js';

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
      if (m.content) cur.parts.push({ type: 'text', text: m.content });
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

// dedupe drops a user item that repeats the one just before it: a
// message sent while the history loaded arrives from both.
function dedupe(items) {
  return items.filter((i, n) => !(i.kind === 'user' && n > 0 && items[n - 1].kind === 'user' && items[n - 1].text === i.text));
}

function apply(items, ev, d) {
  const last = items[items.length - 1];
  const answer = () => {
    if (last && last.kind === 'assistant' && !last.done) return last;
    const a = { kind: 'assistant', parts: [], reasoning: '', done: false };
    items.push(a);
    return a;
  };
  switch (ev) {
    case 'turn.started': {
      const pending = [...items].reverse().find((i) => i.kind === 'user' && i.pending);
      if (pending) pending.pending = false;
      else if (d.text && !(last && last.kind === 'user' && last.text === d.text)) items.push({ kind: 'user', text: d.text });
      items.push({ kind: 'assistant', parts: [], reasoning: '', done: false });
      break;
    }
    case 'reasoning.delta': answer().reasoning += d.text || ''; break;
    case 'content.delta': {
      const a = answer();
      const p = a.parts[a.parts.length - 1];
      if (p && p.type === 'text') p.text += d.text || '';
      else a.parts.push({ type: 'text', text: d.text || '' });
      break;
    }
    case 'tool.started': answer().parts.push({ type: 'tool', id: d.call_id, tool: d.tool, arguments: d.arguments, status: 'running' }); break;
    case 'tool.finished': {
      for (const i of items) for (const p of i.parts || []) {
        if (p.type === 'tool' && p.id === d.call_id) { p.status = d.is_error ? 'failed' : 'done'; p.result = d.result; }
      }
      break;
    }
    case 'turn.finished': {
      const a = answer();
      if (!a.parts.some((p) => p.type === 'text') && d.text) a.parts.push({ type: 'text', text: d.text });
      a.done = true; a.trace = d.trace_id; a.usage = d.usage;
      break;
    }
    case 'turn.interrupted': { const a = answer(); a.done = true; a.interrupted = true; break; }
    case 'error': { const a = answer(); a.done = true; a.error = d.message; break; }
    default: return false;
  }
  return true;
}

function ToolPart({ p }) {
  const icon = p.status === 'running' ? 'clock' : p.status === 'failed' ? 'alert' : 'check';
  return html`<details class=${'tool ' + p.status} data-testid="tool-call">
    <summary><${Icon} name=${icon} /> <code>${p.tool}</code> <span class="muted small">${t('tool.' + p.status)}</span></summary>
    <div class="tool-body">
      <div class="small muted">${t('tool.args')}</div><${Json} value=${p.arguments || '{}'} />
      ${p.result !== undefined && html`<div class="small muted">${t('tool.result')}</div><${Json} value=${p.result} />`}
    </div>
  </details>`;
}

function Answer({ a }) {
  return html`<div class="msg assistant" data-testid="answer">
    ${a.reasoning && html`<details class="reasoning" open=${!a.done && !a.parts.length}>
      <summary><${Icon} name="bulb" /> ${t('chat.reasoning')}</summary><div class="md" dangerouslySetInnerHTML=${{ __html: markdown(a.reasoning) }} /></details>`}
    ${a.parts.map((p) => (p.type === 'text'
      ? html`<div class="md" dangerouslySetInnerHTML=${{ __html: markdown(p.text) }} />`
      : html`<${ToolPart} p=${p} />`))}
    ${!a.done && !a.parts.length && !a.reasoning && html`<div class="typing"><span /><span /><span /></div>`}
    ${a.interrupted && html`<p class="muted small">${t('chat.interrupted')}</p>`}
    ${a.error && html`<p class="error small">${a.error}</p>`}
    ${a.done && (a.trace || a.usage) && html`<div class="meta small muted">
      ${a.usage && (a.usage.prompt_tokens || a.usage.completion_tokens) ? `${a.usage.prompt_tokens || 0} → ${a.usage.completion_tokens || 0} tokens` : ''}
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
        <span class="small muted">${s.busy ? '● ' + t('chat.busy') : when(s.updated_at)}${s.channel && s.channel !== 'web' ? ' · ' + s.channel : ''}</span>
      </${Link}>`)}
    </div>
  </aside>`;
}

// Chat is the chat page for session id ('' for a new one).
export function Chat({ id }) {
  const [sessions, setSessions] = useState(null);
  const [items, setItems] = useState([]);
  const [busy, setBusy] = useState(false);
  const [text, setText] = useState('');
  const [err, setErr] = useState('');
  const pending = useSignal(approvals);
  const idRef = useRef(id);
  const itemsRef = useRef(items);
  const end = useRef(null);
  idRef.current = id;

  const loadSessions = () => get('/v1/sessions').then((r) => setSessions(r.sessions || []), (e) => setErr(e.message));
  useEffect(() => { loadSessions(); }, []);
  useEffect(() => {
    itemsRef.current = [];
    setItems([]); setBusy(false); setErr('');
    if (!id) return;
    get(`/v1/sessions/${id}`).then((s) => setBusy(!!s.busy), () => {});
    get(`/v1/sessions/${id}/messages`).then((r) => {
      if (idRef.current !== id) return;
      // Keep whatever streamed in while the history loaded.
      const live = itemsRef.current;
      itemsRef.current = dedupe([...thread(r.messages), ...live]);
      setItems(itemsRef.current);
    }, (e) => setErr(e.message));
  }, [id]);
  useEffect(() => onEvent((ev, d) => {
    if (ev === 'turn.finished' || ev === 'turn.started') loadSessions();
    if (!idRef.current || String(d.session_id) !== idRef.current) return;
    const next = itemsRef.current.map((i) => (i.kind === 'assistant' ? { ...i, parts: i.parts.map((p) => ({ ...p })) } : { ...i }));
    if (!apply(next, ev, d)) return;
    itemsRef.current = next;
    setItems(next);
    if (ev === 'turn.started') setBusy(true);
    if (ev === 'turn.finished' || ev === 'turn.interrupted' || ev === 'error') setBusy(false);
  }), []);
  useEffect(() => { end.current && end.current.scrollIntoView({ block: 'end' }); }, [items, pending.length]);

  const newChat = async () => {
    try { const s = await post('/v1/sessions', {}); await loadSessions(); navigate('/chat/' + s.id); } catch (e) { setErr(e.message); }
  };
  const send = async (e) => {
    e && e.preventDefault();
    const msg = text.trim();
    if (!msg) return;
    setErr('');
    let sid = id;
    try {
      if (!sid) {
        const s = await post('/v1/sessions', {});
        sid = String(s.id);
        idRef.current = sid;
        navigate('/chat/' + sid);
      }
      itemsRef.current = [...itemsRef.current, { kind: 'user', text: msg, pending: true }];
      setItems(itemsRef.current);
      setText('');
      setBusy(true);
      await post(`/v1/sessions/${sid}/messages`, { text: msg, interrupt: busy });
    } catch (e2) { setErr(e2.message); setBusy(false); }
  };
  const key = (e) => { if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) send(e); };
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
        <textarea rows="1" data-testid="composer" placeholder=${t('chat.placeholder')} value=${text}
          onInput=${(e) => setText(e.target.value)} onKeyDown=${key} />
        <button class="primary send" data-testid="send" disabled=${!text.trim()} title=${busy ? t('chat.interrupt') : t('chat.send')}><${Icon} name="send" /> <span>${busy ? t('chat.interrupt') : t('chat.send')}</span></button>
      </form>
    </section>
  </div>`;
}
