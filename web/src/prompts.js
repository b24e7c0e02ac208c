// prompts.js: the MCP servers' prompts in the composer. Typing / offers
// them (filtered as you type; ↑/↓ choose, Enter or Tab take, Esc hides);
// a prompt with arguments opens a small form, or its arguments can be
// typed after the command as name=value or in order. The prompt's text
// (POST /v1/prompts/{plugin}/{name}) is then sent as the user's message,
// marked "untrusted" with the prompt's origin (see untrustedOrigin).
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post } from './api.js';
import { Icon } from './icons.js';
import { t } from './i18n.js';
import { command, isPromptWord, matches, missing, parse } from './promptcmd.js';

// usePromptComposer gives the composer its prompt menu and form. send
// sends a message (the composer's own path); setErr shows an error. It
// returns view (what to draw above the text box), onKey (true when it
// handled the key) and submit (resolves true when msg was a prompt
// command, handled here).
export function usePromptComposer({ text, setText, send, setErr }) {
  const [prompts, setPrompts] = useState(null);
  const [sel, setSel] = useState(0);
  const [hidden, setHidden] = useState(null); // the text Esc hid the menu for
  const [form, setForm] = useState(null); // {prompt, values}
  const [working, setWorking] = useState(false);

  const load = () => get('/v1/prompts').then((r) => { const l = r.prompts || []; setPrompts(l); return l; },
    () => { setPrompts([]); return []; });
  // The list is read again each time a command is started.
  useEffect(() => { if (text === '/') load(); }, [text === '/']);
  useEffect(() => setSel(0), [text]);

  const offered = !form && hidden !== text ? matches(text, prompts) : [];

  const run = async (prompt, args) => {
    setErr(''); setWorking(true);
    try {
      const r = await post(`/v1/prompts/${encodeURIComponent(prompt.plugin)}/${encodeURIComponent(prompt.name)}`, { arguments: args });
      setForm(null);
      // The text is the MCP server's, not the user's: sent as untrusted, the
      // turn is tainted from its start (writes, spending and posts ask first).
      await send(r.text, untrustedOrigin(prompt));
    } catch (e) {
      setErr(e.message);
    }
    setWorking(false);
  };
  const pick = (p) => {
    setText('');
    if ((p.arguments || []).length) setForm({ prompt: p, values: {} });
    else run(p, {});
  };
  const onKey = (e) => {
    if (!offered.length) return false;
    switch (e.key) {
      case 'ArrowDown': setSel((sel + 1) % offered.length); break;
      case 'ArrowUp': setSel((sel + offered.length - 1) % offered.length); break;
      case 'Enter': case 'Tab':
        if (e.shiftKey || e.isComposing) return false;
        pick(offered[Math.min(sel, offered.length - 1)]);
        break;
      case 'Escape': setHidden(text); break;
      default: return false;
    }
    e.preventDefault();
    return true;
  };
  const submit = async (msg) => {
    if (!isPromptWord(msg.split(/\s/)[0])) return false;
    const c = parse(msg, prompts === null ? await load() : prompts);
    if (!c) return false;
    if (c.error) { setErr(c.error); return true; }
    if (missing(c.prompt, c.args).length) { setText(''); setForm({ prompt: c.prompt, values: c.args }); return true; }
    setText('');
    await run(c.prompt, c.args);
    return true;
  };

  let view = null;
  if (form) {
    view = html`<${PromptForm} form=${form} working=${working} onChange=${(values) => setForm({ ...form, values })}
      onSend=${() => run(form.prompt, clean(form.values))} onClose=${() => setForm(null)} />`;
  } else if (offered.length) {
    view = html`<ul class="prompt-menu" role="listbox" data-testid="prompt-menu" aria-label=${t('prompt.menu')}>
      ${offered.map((p, i) => html`<li key=${command(p)} role="option" aria-selected=${i === sel} class=${i === sel ? 'active' : ''}
        data-testid="prompt-option" onMouseDown=${(e) => { e.preventDefault(); pick(p); }}>
        <code>${command(p)}</code> <span class="muted small">${p.title || firstLine(p.description)}</span>
      </li>`)}
    </ul>`;
  }
  return { view, onKey, submit };
}

// PromptForm asks for a prompt's arguments, required ones marked.
function PromptForm({ form, working, onChange, onSend, onClose }) {
  const p = form.prompt;
  const box = useRef(null);
  // The first empty field takes the focus when the form opens.
  useEffect(() => {
    const empty = box.current && [...box.current.querySelectorAll('input')].find((i) => !i.value);
    if (empty) empty.focus();
  }, [p]);
  const lacking = missing(p, form.values);
  const go = (e) => { e.preventDefault(); if (!lacking.length && !working) onSend(); };
  return html`<div class="prompt-form" data-testid="prompt-form" ref=${box}>
    <div class="prompt-head">
      <code>${command(p)}</code>
      <span class="muted small">${p.title || firstLine(p.description)}</span>
      <button type="button" class="ghost small" onClick=${onClose} title=${t('common.close')} aria-label=${t('common.close')}><${Icon} name="x" /></button>
    </div>
    ${(p.arguments || []).map((a) => html`<label key=${a.name}>
      <span>${a.name}${a.required ? ' *' : ''} ${a.description && html`<span class="muted small">${a.description}</span>`}</span>
      <input data-testid=${'prompt-arg-' + a.name} value=${form.values[a.name] || ''}
        onInput=${(e) => onChange({ ...form.values, [a.name]: e.target.value })}
        onKeyDown=${(e) => { if (e.key === 'Enter' && !e.isComposing) go(e); if (e.key === 'Escape') onClose(); }} />
    </label>`)}
    <div class="prompt-actions">
      ${lacking.length > 0 && html`<span class="muted small">${t('prompt.required', { names: lacking.join(', ') })}</span>`}
      <button type="button" class="primary" data-testid="prompt-send" disabled=${lacking.length > 0 || working} onClick=${go}>
        <${Icon} name="send" /> ${t('prompt.send')}</button>
    </div>
  </div>`;
}

// clean drops empty optional values: an argument left blank is not sent.
function clean(values) {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => String(v).trim() !== ''));
}

// untrustedOrigin names where a prompt's text came from, as the message's
// "untrusted" field: "<plugin> prompt <name>" (the terminal's Prompt.Origin).
export function untrustedOrigin(p) { return p.plugin + ' prompt ' + p.name; }

function firstLine(s) { return String(s || '').trim().split('\n')[0]; }
