// form.js: a settings form generated from ConfigDef: string, number
// (min/max/step), boolean and options fields, required marks, and secrets
// as masked write-only fields that only say whether a value is set.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { t } from './i18n.js';

// fieldValue reads a setting's value as the API sends it: either the
// value, or {value, set} (secrets: value null, set true).
export function fieldValue(v) {
  if (v && typeof v === 'object' && !Array.isArray(v) && ('set' in v || 'value' in v)) return { value: v.value ?? null, set: !!v.set };
  return { value: v ?? null, set: v != null };
}

function Field({ def, value, isSet, draft, onChange, error }) {
  const id = 'f-' + def.key.replace(/[^\w-]/g, '_');
  const cur = draft !== undefined ? draft : value;
  let input;
  if (def.secret) {
    input = html`<div class="secret">
      <input id=${id} name=${def.key} type="password" autocomplete="new-password" data-secret="true"
        placeholder=${isSet ? '•••••••• (' + t('set.secretSet') + ')' : t('set.secretUnset')}
        value=${draft || ''} onInput=${(e) => onChange(e.target.value || undefined)} />
      <span class=${'pill ' + (isSet ? 'ok' : '')} data-testid="secret-state">${isSet ? t('set.secretSet') : t('set.secretUnset')}</span>
    </div>
    <div class="hint">${t('set.secretHint')}</div>`;
  } else if (def.type === 'boolean') {
    input = html`<label class="switch"><input id=${id} name=${def.key} type="checkbox" checked=${!!(cur ?? def.default)}
      onChange=${(e) => onChange(e.target.checked)} /><span /></label>`;
  } else if (def.options && def.options.length) {
    input = html`<select id=${id} name=${def.key} value=${cur ?? def.default ?? ''} onChange=${(e) => onChange(e.target.value)}>
      ${!def.required && html`<option value="">—</option>`}
      ${def.options.map((o) => html`<option value=${o}>${o}</option>`)}
    </select>`;
  } else if (def.type === 'number') {
    input = html`<input id=${id} name=${def.key} type="number" min=${def.min || undefined} max=${def.max || undefined}
      step=${def.step || 'any'} required=${def.required} value=${cur ?? ''} placeholder=${def.default ?? ''}
      onInput=${(e) => onChange(e.target.value === '' ? null : Number(e.target.value))} />`;
  } else if (!def.type && cur != null && typeof cur === 'object') {
    input = html`<pre class="json">${JSON.stringify(cur, null, 2)}</pre>`;
  } else {
    input = html`<input id=${id} name=${def.key} type="text" required=${def.required} value=${cur ?? ''} placeholder=${def.default ?? ''}
      onInput=${(e) => onChange(e.target.value)} />`;
  }
  return html`<div class=${'field' + (error ? ' invalid' : '')} data-key=${def.key}>
    <label for=${id}>${def.display_name || def.key}${def.required && html` <span class="req" title=${t('set.required')}>*</span>`}</label>
    ${input}
    ${def.description && html`<div class="hint">${def.description}</div>`}
    ${def.default != null && !def.secret && def.type !== 'boolean' && cur !== def.default && html`<div class="hint">${t('set.default', { v: String(def.default) })}</div>`}
    ${error && html`<div class="error small" data-testid="field-error">${error}</div>`}
  </div>`;
}

// SettingsForm edits defs' values; save receives only the changed keys
// and may throw an ApiError whose fields are shown beside each field.
export function SettingsForm({ defs, values, save, testid }) {
  const [draft, setDraft] = useState({});
  const [errors, setErrors] = useState({});
  const [msg, setMsg] = useState('');
  const [busy, setBusy] = useState(false);
  if (!defs || !defs.length) return html`<p class="muted small">${t('set.none')}</p>`;
  const submit = async (e) => {
    e.preventDefault();
    setBusy(true); setMsg(''); setErrors({});
    try {
      await save(draft);
      setDraft({});
      setMsg(t('set.saved'));
    } catch (err) {
      setErrors(err.fields || {});
      setMsg(err.fields ? t('set.invalid') : err.message);
    }
    setBusy(false);
  };
  const groups = new Map();
  for (const d of defs) {
    const g = d.category || '';
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push(d);
  }
  return html`<form class="settings-form" data-testid=${testid} onSubmit=${submit} novalidate>
    ${[...groups].map(([g, list]) => html`<fieldset>${g && html`<legend>${g}</legend>`}
      ${list.map((d) => {
        const v = fieldValue(values ? values[d.key] : undefined);
        return html`<${Field} key=${d.key} def=${d} value=${v.value} isSet=${v.set} draft=${draft[d.key]} error=${errors[d.key]}
          onChange=${(x) => setDraft((o) => { const n = { ...o }; if (x === undefined) delete n[d.key]; else n[d.key] = x; return n; })} />`;
      })}</fieldset>`)}
    <div class="row">
      <button class="primary" disabled=${busy || !Object.keys(draft).length} data-testid="save">${t('set.save')}</button>
      ${msg && html`<span class=${Object.keys(errors).length ? 'error small' : 'muted small'} data-testid="form-msg">${msg}</span>`}
    </div>
  </form>`;
}
