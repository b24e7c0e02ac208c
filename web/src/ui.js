// ui.js: small pieces every page uses.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { navigate } from './store.js';
import { t, lang } from './i18n.js';

// Link is an <a> that navigates inside the page.
export function Link({ href, class: cls, children, ...rest }) {
  const click = (e) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(href);
  };
  return html`<a href=${href} class=${cls} onClick=${click} ...${rest}>${children}</a>`;
}

// useLoad runs load() now and whenever deps change, and returns
// [data, error, reload].
export function useLoad(load, deps = []) {
  const [state, setState] = useState({ data: null, error: null });
  const run = useCallback(() => {
    let live = true;
    load().then((data) => live && setState({ data, error: null }), (error) => live && setState({ data: null, error }));
    return () => { live = false; };
  }, deps);
  useEffect(run, [run]);
  return [state.data, state.error, run];
}

// Status shows loading or an error (404 as "not offered yet").
export function Status({ error }) {
  if (!error) return html`<p class="muted">${t('common.loading')}</p>`;
  if (error.status === 404 || error.status === 405) return html`<p class="muted">${t('common.notAvailable')}</p>`;
  return html`<p class="error">${t('common.error', { m: error.message })}</p>`;
}

// Json shows a value as indented JSON text.
export function Json({ value }) {
  let s = value;
  if (typeof s === 'string') {
    try { s = JSON.stringify(JSON.parse(s), null, 2); } catch { /* keep the text */ }
  } else s = JSON.stringify(s, null, 2);
  return html`<pre class="json">${s}</pre>`;
}

// locale is the locale of the UI's language (not the browser's, which
// may differ): Chinese times read 22:40, not 10:40 PM.
export function locale() {
  if (lang.value === 'zh') return 'zh-CN';
  const nav = (typeof navigator !== 'undefined' && navigator.language) || '';
  return /^en\b/i.test(nav) ? nav : 'en';
}

// when formats a time for people, in the UI's language.
export function when(ts) {
  if (!ts) return '';
  const d = new Date(ts);
  if (isNaN(d)) return '';
  const now = new Date();
  const opts = d.toDateString() === now.toDateString() ? { hour: '2-digit', minute: '2-digit' } : { dateStyle: 'medium' };
  return new Intl.DateTimeFormat(locale(), opts).format(d);
}

// channelName is a channel's name for people: terminal, ask, openai and
// web are translated; a plugin's channel keeps its own name.
export function channelName(ch) {
  if (!ch) return '';
  const key = 'channel.' + ch;
  const s = t(key);
  return s === key ? ch : s;
}

// Ticks shows text with `code` in backticks as code.
export function Ticks({ text }) {
  return String(text).split('`').map((part, i) => (i % 2 ? html`<code>${part}</code>` : part));
}

// Tabs is a row of buttons choosing one of tabs ([value, label] pairs).
export function Tabs({ value, onChange, tabs }) {
  return html`<div class="tabs" role="tablist">${tabs.map(([v, label]) => html`<button type="button" role="tab"
    aria-selected=${v === value} data-testid=${'tab-' + v} class=${'tab' + (v === value ? ' active' : '')}
    onClick=${() => onChange(v)}>${label}</button>`)}</div>`;
}
