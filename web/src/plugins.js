// plugins.js: every plugin with its state, error and stderr tail, and
// enable, disable and reload.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post } from './api.js';
import { t } from './i18n.js';
import { Status, useLoad } from './ui.js';

const good = (s) => ['running', 'ready', 'started', 'loaded'].includes(s);

function Plugin({ p, reload }) {
  const [busy, setBusy] = useState('');
  const [err, setErr] = useState('');
  const name = p.name || p.id;
  const act = async (what) => {
    setBusy(what); setErr('');
    try { await post(`/v1/plugins/${encodeURIComponent(name)}/${what}`); } catch (e) { setErr(e.message); }
    setBusy(''); reload();
  };
  const disabled = p.enabled === false || p.state === 'disabled';
  const stderr = p.stderr_tail || p.stderr || [];
  return html`<div class="card plugin" data-testid="plugin" data-name=${name}>
    <div class="row between">
      <div><strong>${name}</strong> ${p.version && html`<span class="muted small">v${p.version}</span>`}
        <span class="muted small"> ${p.kind || ''}</span></div>
      <span class=${'pill ' + (good(p.state) ? 'ok' : disabled ? '' : 'bad')} data-testid="plugin-state">${p.state || (disabled ? 'disabled' : '')}</span>
    </div>
    ${p.description && html`<p class="small">${p.description}</p>`}
    ${p.error && html`<p class="error small">${t('plug.error')}: ${p.error}</p>`}
    ${p.tools && p.tools.length ? html`<div class="small muted">${t('plug.tools')}: ${p.tools.map((x) => html`<code>${x.name || x}</code> `)}</div>` : null}
    ${(Array.isArray(stderr) ? stderr.length : stderr) ? html`<details><summary class="small">${t('plug.stderr')}</summary>
      <pre class="json">${Array.isArray(stderr) ? stderr.join('\n') : stderr}</pre></details>` : null}
    <div class="row actions">
      ${disabled
        ? html`<button class="primary" disabled=${!!busy} onClick=${() => act('enable')}>${t('plug.enable')}</button>`
        : html`<button disabled=${!!busy} onClick=${() => act('disable')}>${t('plug.disable')}</button>`}
      <button class="ghost" disabled=${!!busy || disabled} onClick=${() => act('reload')}>↻ ${t('plug.reload')}</button>
    </div>
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}

// Plugins is the plugins page.
export function Plugins() {
  const [data, error, reload] = useLoad(() => get('/v1/plugins'));
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.plugins')}</h1><button class="ghost" onClick=${reload}>↻ ${t('common.refresh')}</button></div>
    ${!data ? html`<${Status} error=${error} />`
      : !(data.plugins || []).length ? html`<p class="muted">${t('plug.none')}</p>`
      : html`<div class="cards">${data.plugins.map((p) => html`<${Plugin} key=${p.name} p=${p} reload=${reload} />`)}</div>`}
  </div>`;
}
