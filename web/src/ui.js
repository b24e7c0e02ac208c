// ui.js: small pieces every page uses.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { navigate } from './store.js';
import { t } from './i18n.js';

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

// when formats a time for people.
export function when(ts) {
  if (!ts) return '';
  const d = new Date(ts);
  if (isNaN(d)) return '';
  const now = new Date();
  return d.toDateString() === now.toDateString() ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString();
}

// Tabs is a row of buttons choosing one of tabs ([value, label] pairs).
export function Tabs({ value, onChange, tabs }) {
  return html`<div class="tabs" role="tablist">${tabs.map(([v, label]) => html`<button type="button" role="tab"
    aria-selected=${v === value} data-testid=${'tab-' + v} class=${'tab' + (v === value ? ' active' : '')}
    onClick=${() => onChange(v)}>${label}</button>`)}</div>`;
}
