// providers.js: model sources and the onboarding of a fresh Hearth:
// choose a preset, enter a key, test it, then chat.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post } from './api.js';
import { Logo } from './icons.js';
import { t } from './i18n.js';
import { navigate } from './store.js';
import { Status, useLoad } from './ui.js';

function Onboard({ presets, onSaved }) {
  const [preset, setPreset] = useState(presets[0] ? presets[0].name : '');
  const p = presets.find((x) => x.name === preset) || {};
  const [key, setKey] = useState('');
  const [baseURL, setBaseURL] = useState('');
  const [model, setModel] = useState('');
  const [state, setState] = useState({ ok: false, msg: '', busy: false });
  useEffect(() => { setBaseURL(p.base_url || ''); setModel(p.model || ''); setState({ ok: false, msg: '', busy: false }); }, [preset]);
  const body = () => ({ preset, api_key: key, base_url: baseURL, model });
  const test = async () => {
    setState({ ok: false, msg: t('prov.testing'), busy: true });
    try {
      const r = await post('/v1/providers/test', body());
      setState({ ok: true, msg: t('prov.ok', { model: r.model || model }), busy: false });
    } catch (e) { setState({ ok: false, msg: e.message, busy: false }); }
  };
  const save = async (e) => {
    e.preventDefault();
    setState({ ...state, busy: true });
    try { await post('/v1/providers', body()); onSaved(); } catch (x) { setState({ ok: false, msg: x.message, busy: false }); }
  };
  return html`<form class="card onboard" onSubmit=${save} data-testid="onboarding">
    <label>${t('prov.preset')}
      <select name="preset" value=${preset} onChange=${(e) => setPreset(e.target.value)}>
        ${presets.map((x) => html`<option value=${x.name}>${x.display_name || x.name}</option>`)}
      </select></label>
    ${p.description && html`<p class="hint">${p.description}</p>`}
    ${p.needs_key !== false && html`<label>${t('prov.key')}
      <input name="api_key" type="password" autocomplete="off" value=${key} onInput=${(e) => setKey(e.target.value)} /></label>`}
    <label>${t('prov.baseURL')}<input name="base_url" value=${baseURL} onInput=${(e) => setBaseURL(e.target.value)} /></label>
    <label>${t('prov.model')}<input name="model" value=${model} onInput=${(e) => setModel(e.target.value)} /></label>
    <div class="row actions">
      <button type="button" disabled=${state.busy} onClick=${test} data-testid="test-provider">${t('prov.test')}</button>
      <button class="primary" disabled=${state.busy || !state.ok} data-testid="save-provider">${t('prov.save')}</button>
    </div>
    ${state.msg && html`<p class=${state.ok ? 'ok small' : 'error small'} data-testid="provider-msg">${state.msg}</p>`}
  </form>`;
}

// Providers is the model sources page, and the onboarding when none is
// configured.
export function Providers() {
  const [data, error, reload] = useLoad(() => get('/v1/providers'));
  if (!data) return html`<div class="page"><h1>${t('nav.providers')}</h1><${Status} error=${error} /></div>`;
  const sources = data.sources || [];
  const fresh = !sources.length;
  return html`<div class="page narrow">
    ${fresh && html`<div class="welcome"><${Logo} size=${64} /><h1>${t('prov.title')}</h1><p>${t('prov.intro')}</p></div>`}
    ${!fresh && html`<div class="page-head"><h1>${t('nav.providers')}</h1></div>
      <div class="cards">${sources.map((s) => html`<div class="card">
        <div class="row between"><strong>${s.name}</strong>${s.current && html`<span class="pill ok">${t('prov.current')}</span>`}</div>
        <div class="small muted"><code>${s.model}</code> · ${s.base_url || s.kind || ''} ${s.key_set || s.api_key_set ? '· ' + t('prov.key') + ': ' + t('set.secretSet') : ''}</div>
      </div>`)}</div>
      <h2>${t('prov.add')}</h2>`}
    <${Onboard} presets=${data.presets || []} onSaved=${() => { if (fresh) navigate('/chat'); else reload(); }} />
  </div>`;
}
