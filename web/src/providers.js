// providers.js: model sources and the onboarding of a fresh Hearth:
// choose a preset, enter a key, test it, then chat.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post, put, del } from './api.js';
import { t, lang } from './i18n.js';
import { navigate } from './store.js';
import { Logo } from './icons.js';
import { Status, useLoad } from './ui.js';
import { money, peakHours, price, tokens } from './money.js';

const enc = encodeURIComponent;
const custom = { name: '', label: 'Other (OpenAI-compatible)', label_zh: '其他（兼容 OpenAI 接口）', base_url: '', model: '', needs_key: true };

// Onboard adds a source from a preset: save (PUT), test, then use it.
function Onboard({ presets, fresh, onSaved }) {
  const all = [...presets, custom];
  const [pick, setPick] = useState(0);
  const p = all[pick] || custom;
  const [name, setName] = useState(p.name);
  const [key, setKey] = useState('');
  const [baseURL, setBaseURL] = useState(p.base_url);
  const [model, setModel] = useState(p.model);
  const [state, setState] = useState({ ok: false, msg: '', busy: false, fields: {} });
  useEffect(() => {
    setName(p.name || 'custom'); setBaseURL(p.base_url); setModel(p.model || '');
    setState({ ok: false, msg: '', busy: false, fields: {} });
  }, [pick]);
  const test = async (e) => {
    e.preventDefault();
    setState({ ok: false, msg: t('prov.testing'), busy: true, fields: {} });
    try {
      const body = { base_url: baseURL.trim(), model: model.trim() };
      if (key) body.api_key = key.trim();
      await put('/v1/providers/' + enc(name.trim()), body);
      const r = await post('/v1/providers/' + enc(name.trim()) + '/test');
      if (r.ok) setState({ ok: true, msg: t('prov.ok', { model: r.model, ms: r.latency_ms }), busy: false, fields: {} });
      else setState({ ok: false, msg: r.error, busy: false, fields: {} });
    } catch (x) { setState({ ok: false, msg: x.message, busy: false, fields: x.fields || {} }); }
  };
  const use = async () => {
    setState({ ...state, busy: true });
    try { await post('/v1/providers/' + enc(name.trim()) + '/use'); onSaved(); } catch (x) { setState({ ...state, ok: false, msg: x.message, busy: false }); }
  };
  const f = state.fields;
  const label = (x) => (lang.value === 'zh' ? x.label_zh || x.label : x.label);
  return html`<form class="card onboard" onSubmit=${test} data-testid="onboarding">
    <label>${t('prov.preset')}
      <select name="preset" value=${pick} onChange=${(e) => setPick(Number(e.target.value))}>
        ${all.map((x, i) => html`<option value=${i}>${label(x)}</option>`)}
      </select></label>
    ${p.key_url && html`<p class="hint">${t('prov.keyAt')} <a href=${p.key_url} target="_blank" rel="noopener noreferrer">${p.key_url}</a></p>`}
    ${!p.name && html`<label>${t('prov.name')}<input name="name" value=${name} onInput=${(e) => setName(e.target.value)} />
      ${f.name && html`<span class="error small">${f.name}</span>`}</label>`}
    <label>${t('prov.key')}${!p.needs_key && html` <span class="muted small">(${t('prov.optional')})</span>`}
      <input name="api_key" type="password" autocomplete="off" value=${key} onInput=${(e) => setKey(e.target.value)} />
      ${f.api_key && html`<span class="error small">${f.api_key}</span>`}</label>
    <details open=${!p.name || !p.model}><summary class="small muted">${t('prov.advanced')}</summary>
      <label>${t('prov.baseURL')}<input name="base_url" value=${baseURL} onInput=${(e) => setBaseURL(e.target.value)} />
        ${f.base_url && html`<span class="error small">${f.base_url}</span>`}</label>
      <label>${t('prov.model')}<input name="model" value=${model} placeholder=${p.model_hint || ''} onInput=${(e) => setModel(e.target.value)} />
        ${f.model && html`<span class="error small">${f.model}</span>`}</label>
    </details>
    <div class="row actions">
      <button disabled=${state.busy || !name.trim() || (p.needs_key && !key && !state.ok)} data-testid="test-provider">${t('prov.test')}</button>
      <button type="button" class="primary" disabled=${state.busy || !state.ok} onClick=${use} data-testid="use-provider">${fresh ? t('prov.save') : t('prov.use')}</button>
    </div>
    ${state.msg && html`<p class=${state.ok ? 'ok small' : 'error small'} data-testid="provider-msg">${state.msg}</p>`}
  </form>`;
}

// Balance is a source's account balance (GET
// /v1/providers/{name}/balance): the money left by currency, "not
// supported" for a provider without a balance API, or why it could not
// be read (the server masks any key in the provider's message).
function Balance({ b }) {
  if (!b.supported) return html`<p class="muted small" data-testid="balance-unsupported">${t('prov.balanceUnsupported')}</p>`;
  if (!b.ok) return html`<p class="error small" data-testid="balance-error">${t('prov.balanceError', { m: b.error || '' })}</p>`;
  const acc = b.account || { balances: [] };
  return html`<div class="small" data-testid="balance">
    ${(acc.balances || []).map((x) => html`<div><b data-testid="balance-total">${money(x.total, x.currency)}</b>
      ${x.granted != null || x.toppedUp != null ? html` <span class="muted">(${[
        x.toppedUp != null ? t('prov.toppedUp', { v: money(x.toppedUp, x.currency) }) : '',
        x.granted != null ? t('prov.granted', { v: money(x.granted, x.currency) }) : '',
      ].filter(Boolean).join(', ')})</span>` : ''}</div>`)}
    ${!acc.available && html`<p class="error small">${t('prov.unavailable')}</p>`}
  </div>`;
}

// Models is a source's models with their context windows and prices per
// million tokens (GET /v1/providers/{name}/models).
function Models({ m }) {
  const list = m.models || [];
  return html`<div data-testid="models">
    ${m.error && html`<p class="error small" data-testid="models-error">${t('prov.modelsError', { m: m.error })}</p>`}
    ${!list.length ? html`<p class="muted small">${t('prov.noModels')}</p>` : html`<div class="table-scroll"><table class="grid prices">
      <thead><tr><th>${t('prov.model')}</th><th>${t('prov.context')}</th><th>${t('prov.priceIn')}</th><th>${t('prov.priceCached')}</th><th>${t('prov.priceOut')}</th></tr></thead>
      <tbody>${list.map((x) => { const p = x.pricing; return html`<tr data-testid="model-row">
        <td><code>${x.id}</code>${x.name && x.name !== x.id ? html`<div class="muted small">${x.name}</div>` : ''}${peakNote(p)}</td>
        <td>${x.contextWindow ? tokens(x.contextWindow) : '—'}</td>
        ${p ? html`<td>${price(p.inputCacheMiss, p.currency)}</td><td>${price(p.inputCacheHit || p.inputCacheMiss, p.currency)}</td><td>${price(p.output, p.currency)}</td>`
          : html`<td colspan="3" class="muted">${t('usage.unpriced')}</td>`}
      </tr>`; })}</tbody></table></div>`}
    <p class="muted small">${m.listed ? t('prov.listed') : t('prov.presetList')} ${t('prov.perMillion')}</p>
  </div>`;
}

// peakNote says when a model's prices are raised (DeepSeek's weekday
// peak hours): what is charged then is the multiple of what is shown.
function peakNote(p) {
  const pk = peakHours(p && p.peak);
  if (!pk) return '';
  return html`<div class="muted small" data-testid="peak">${t(pk.weekdays ? 'prov.peakWeekdays' : 'prov.peak', pk)}</div>`;
}

// SourceDetails reads a source's balance and models when it is first
// shown, not on the page's load: each is a call to the provider.
function SourceDetails({ name }) {
  const [data, error] = useLoad(() => Promise.all([
    get('/v1/providers/' + enc(name) + '/balance'), get('/v1/providers/' + enc(name) + '/models')]), [name]);
  if (!data) return html`<${Status} error=${error} />`;
  return html`<div class="source-details">
    <h3>${t('prov.balance')}</h3><${Balance} b=${data[0]} />
    <h3>${t('prov.models')}</h3><${Models} m=${data[1]} />
  </div>`;
}

// SourceMore folds a source's balance and models away until opened.
function SourceMore({ name }) {
  const [open, setOpen] = useState(false);
  return html`<details class="source-more" data-testid="source-more" onToggle=${(e) => { if (e.target.open) setOpen(true); }}>
    <summary class="small">${t('prov.more')}</summary>
    ${open && html`<${SourceDetails} name=${name} />`}
  </details>`;
}

// Providers is the model sources page, and the onboarding when none is
// configured.
export function Providers() {
  const [data, error, reload] = useLoad(() => Promise.all([get('/v1/providers'), get('/v1/providers/presets')]));
  const [err, setErr] = useState('');
  if (!data) return html`<div class="page"><h1>${t('nav.providers')}</h1><${Status} error=${error} /></div>`;
  const [list, presets] = data;
  const fresh = !list.current;
  const act = async (f) => { setErr(''); try { await f(); reload(); } catch (x) { setErr(x.message); } };
  return html`<div class="page narrow">
    ${fresh ? html`<div class="welcome"><${Logo} size=${64} /><h1>${t('prov.title')}</h1><p>${t('prov.intro')}</p></div>`
      : html`<div class="page-head"><h1>${t('nav.providers')}</h1></div>`}
    ${(list.providers || []).length > 0 && html`<div class="cards one">${list.providers.map((s) => html`<div class="card" data-testid="provider">
      <div class="row between"><strong>${s.name}</strong>${s.current ? html`<span class="pill ok">${t('prov.current')}</span>`
        : html`<span class="row"><button class="ghost small" onClick=${() => act(() => post('/v1/providers/' + enc(s.name) + '/use'))}>${t('prov.use')}</button>
          ${!s.from_env && html`<button class="ghost small danger" onClick=${() => act(() => del('/v1/providers/' + enc(s.name)))}>${t('kb.delete')}</button>`}</span>`}</div>
      <div class="small muted"><code>${s.model}</code> · ${s.base_url}${s.key_set ? ' · ' + t('prov.key') + ': ' + t('set.secretSet') : ''}${s.from_env ? ' · OPENAI_BASE_URL' : ''}</div>
      <${SourceMore} key=${s.name} name=${s.name} />
    </div>`)}</div>`}
    ${err && html`<p class="error small">${err}</p>`}
    ${!fresh && html`<h2>${t('prov.add')}</h2>`}
    <${Onboard} presets=${presets.presets || []} fresh=${fresh} onSaved=${() => { if (fresh) navigate('/chat'); else reload(); }} />
  </div>`;
}
