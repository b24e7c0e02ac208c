// approval.js: the card that answers a pending approval: allow once,
// always (typed confirmation for spending or publishing tools), deny.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { post } from './api.js';
import { Icon } from './icons.js';
import { t } from './i18n.js';
import { approvals } from './store.js';
import { Json, channelName, when } from './ui.js';

// needsConfirm: 'always' on a spending or publishing tool must be typed.
const needsConfirm = (a) => a.confirm_always || a.effect === 'money' || a.effect === 'public';

// ApprovalCard shows one pending approval with its three answers.
export function ApprovalCard({ approval: a, showChannel }) {
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  const answer = async (ans, confirm) => {
    setBusy(true); setErr('');
    try {
      await post(`/v1/approvals/${encodeURIComponent(a.id)}`, confirm ? { answer: ans, confirm } : { answer: ans });
      approvals.value = approvals.value.filter((x) => x.id !== a.id);
    } catch (e) { setErr(e.message); }
    setBusy(false);
  };
  const always = () => (needsConfirm(a) ? setConfirming(true) : answer('always'));
  return html`<div class=${'approval effect-' + (a.effect || 'write')} data-testid="approval">
    <div class="row between">
      <strong class="row"><${Icon} name="shield" /> ${a.title || a.tool}</strong>
      ${a.effect && html`<span class="pill">${t('effect.' + a.effect)}</span>`}
    </div>
    <div class="muted small">
      ${a.title && a.title !== a.tool ? html`<code>${a.tool}</code>` : null}${a.target ? html` → <code>${a.target}</code>` : null}
      ${showChannel && a.channel ? ' · ' + t('appr.from', { channel: channelName(a.channel) }) : ''}
      ${a.expires_at ? ' · ' + t('appr.expires', { at: when(a.expires_at) }) : ''}
    </div>
    ${a.reason && html`<p class="small">${t('appr.reason')}: ${a.reason}</p>`}
    ${a.arguments && html`<details><summary>${t('tool.args')}</summary><${Json} value=${a.arguments} /></details>`}
    ${confirming ? html`<form class="row" onSubmit=${(e) => { e.preventDefault(); answer('always', typed.trim()); }}>
        <label class="small grow">${t('appr.confirm', { effect: t('effect.' + (a.effect || 'write')) })}
          <input data-testid="approval-confirm" value=${typed} onInput=${(e) => setTyped(e.target.value)} autocomplete="off" /></label>
        <button class="danger" disabled=${busy || typed.trim() !== 'always'}>${t('appr.confirmBtn')}</button>
        <button type="button" class="ghost" onClick=${() => setConfirming(false)}>${t('common.cancel')}</button>
      </form>`
    : html`<div class="row actions">
        <button class="primary" disabled=${busy} onClick=${() => answer('once')}>${t('appr.once')}</button>
        <button disabled=${busy} onClick=${always}>${t('appr.always')}</button>
        <button class="danger" disabled=${busy} onClick=${() => answer('deny')}>${t('appr.deny')}</button>
      </div>`}
    ${err && html`<p class="error small">${err}</p>`}
  </div>`;
}
