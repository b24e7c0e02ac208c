// plugins.js: every plugin with its state, error and stderr tail, and
// enable, disable and reload.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post } from './api.js';
import { t } from './i18n.js';
import { Icon } from './icons.js';
import { Status, useLoad } from './ui.js';

const good = (s) => s === 'running';

function Plugin({ p, reload }) {
  const [busy, setBusy] = useState('');
  const [err, setErr] = useState('');
  const name = p.id;
  const act = async (what) => {
    setBusy(what); setErr('');
    try {
      const r = await post(`/v1/plugins/${encodeURIComponent(name)}/${what}`);
      if (r && r.message) setErr(r.message);
    } catch (e) { setErr(e.message); }
    setBusy(''); reload();
  };
  const disabled = p.enabled === false || p.state === 'disabled';
  const stderr = p.stderr || [];
  const why = p.reason || p.last_error;
  return html`<div class="card plugin" data-testid="plugin" data-name=${name}>
    <div class="row between">
      <div><strong>${name}</strong> ${p.version && html`<span class="muted small">v${p.version}</span>`}
        <span class="pill">${p.kind}</span>${p.pid ? html` <span class="muted small">pid ${p.pid}</span>` : null}</div>
      <span class=${'pill ' + (good(p.state) ? 'ok' : disabled ? '' : 'bad')} data-testid="plugin-state">${p.state}</span>
    </div>
    ${p.description && html`<p class="small">${p.description}</p>`}
    ${why && html`<p class=${good(p.state) ? 'muted small' : 'error small'}>${why}</p>`}
    ${p.tools && p.tools.length ? html`<div class="small muted">${t('plug.tools')}: ${p.tools.map((x) => html`<code title=${x.description || ''}>${x.local || x.name}</code> `)}</div>` : null}
    ${(Array.isArray(stderr) ? stderr.length : stderr) ? html`<details><summary class="small">${t('plug.stderr')}</summary>
      <pre class="json">${Array.isArray(stderr) ? stderr.join('\n') : stderr}</pre></details>` : null}
    <div class="row actions">
      ${disabled
        ? html`<button class="primary" disabled=${!!busy} onClick=${() => act('enable')}>${t('plug.enable')}</button>`
        : html`<button disabled=${!!busy} onClick=${() => act('disable')}>${t('plug.disable')}</button>`}
      ${p.kind !== 'builtin' && p.kind !== 'so' && html`<button class="ghost" disabled=${!!busy || disabled} onClick=${() => act('reload')}><${Icon} name="refresh" /> ${t('plug.reload')}</button>`}
      ${p.live_toggle === false && html`<span class="muted small">${t('plug.restart')}</span>`}
    </div>
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}

// Plugins is the plugins page.
export function Plugins() {
  const [data, error, reload] = useLoad(() => get('/v1/plugins'));
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.plugins')}</h1><button class="ghost" onClick=${reload}><${Icon} name="refresh" /> ${t('common.refresh')}</button></div>
    ${!data ? html`<${Status} error=${error} />`
      : !(data.plugins || []).length ? html`<p class="muted">${t('plug.none')}</p>`
      : html`<div class="cards">${data.plugins.map((p) => html`<${Plugin} key=${p.id} p=${p} reload=${reload} />`)}</div>`}
  </div>`;
}
