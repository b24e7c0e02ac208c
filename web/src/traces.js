// traces.js: what happened in each answer: stages, model calls with
// tokens, cost and latency, tool calls with arguments, results and
// durations, approvals.
import { html } from 'htm/preact';
import { get } from './api.js';
import { t } from './i18n.js';
import { Json, Link, Status, channelName, useLoad, when } from './ui.js';
import { money } from './money.js';

const ms = (v) => (v == null ? '' : v >= 1000 ? (v / 1000).toFixed(2) + ' s' : Math.round(v) + ' ms');
const cost = (c) => (c && c.currency ? money(c.amount, c.currency) : t('tr.unknownCost'));
const tokens = (u) => (u ? `${u.input_tokens || 0} / ${u.output_tokens || 0} / ${u.cached_tokens || 0}` : '');

function List() {
  const [data, error] = useLoad(() => get('/v1/traces'));
  if (!data) return html`<${Status} error=${error} />`;
  const list = data.traces || [];
  if (!list.length) return html`<p class="muted">${t('tr.none')}</p>`;
  return html`<div class="cards">${list.map((tr) => html`<${Link} href=${'/traces/' + tr.id} class="card link trace-row">
    <div class="row between"><strong class="ellipsis">${tr.input || '—'}</strong><span class=${'pill ' + tr.outcome}>${t('tr.' + tr.outcome) === 'tr.' + tr.outcome ? tr.outcome : t('tr.' + tr.outcome)}</span></div>
    <div class="muted small ellipsis">${tr.answer || tr.error || ''}</div>
    <div class="small muted">${when(tr.started)} · ${channelName(tr.channel)} · ${ms(tr.duration_ms)}${tr.usage ? html` · <span data-testid="trace-tokens">${t('tr.tokens')} ${tokens(tr.usage)}</span>` : ''} ${tr.cost ? '· ' + cost(tr.cost) : ''}</div>
  </${Link}>`)}</div>`;
}

function Bar({ value, max }) {
  const w = max > 0 ? Math.max(2, Math.round((100 * value) / max)) : 0;
  return html`<div class="bar"><div style=${`width:${w}%`} /></div>`;
}

function One({ id }) {
  const [tr, error] = useLoad(() => get('/v1/traces/' + encodeURIComponent(id)), [id]);
  if (!tr) return html`<${Status} error=${error} />`;
  const total = tr.duration_ms || 1;
  return html`<div class="trace" data-testid="trace">
    <div class="card">
      <div class="row between"><strong>${tr.input}</strong><span class=${'pill ' + tr.outcome}>${t('tr.' + tr.outcome) === 'tr.' + tr.outcome ? tr.outcome : t('tr.' + tr.outcome)}</span></div>
      ${tr.answer && html`<p class="muted">${tr.answer}</p>`}
      ${tr.error && html`<p class="error">${tr.error}</p>`}
      <div class="stats">
        <div><span class="muted small">${t('tr.duration')}</span><b>${ms(tr.duration_ms)}</b></div>
        <div><span class="muted small">${t('tr.tokens')}</span><b>${tokens(tr.usage)}</b></div>
        <div><span class="muted small">${t('tr.cost')}</span><b>${cost(tr.cost)}</b></div>
        <div><span class="muted small">${t('tr.calls')}</span><b>${(tr.model_calls || []).length}</b></div>
      </div>
    </div>
    <h3>${t('tr.calls')}</h3>
    <table class="grid"><thead><tr><th>${t('tr.model')}</th><th>${t('tr.tokens')}</th><th>${t('tr.latency')}</th><th>${t('tr.cost')}</th><th /></tr></thead>
      <tbody>${(tr.model_calls || []).map((c) => html`<tr>
        <td><code>${c.model || c.source}</code>${c.error && html`<div class="error small">${c.error}</div>`}</td>
        <td>${tokens(c.usage)}</td>
        <td>${ms(c.duration_ms)}${c.first_token_ms ? html`<div class="muted small">TTFT ${ms(c.first_token_ms)}</div>` : null}</td>
        <td>${cost(c.cost)}</td><td class="wide-col"><${Bar} value=${c.duration_ms} max=${total} /></td>
      </tr>`)}</tbody></table>
    <h3>${t('tr.tools')}</h3>
    ${(tr.tool_calls || []).length ? (tr.tool_calls || []).map((c) => html`<details class=${'tool ' + (c.outcome === 'ok' ? 'done' : 'failed')}>
      <summary><code>${c.name}</code> <span class="pill">${c.outcome}</span> <span class="muted small">${ms(c.duration_ms)} · ${c.decision}${c.decided_by ? ' (' + c.decided_by + ')' : ''}${c.approval ? ' · ' + t('tr.approvals') + ': ' + c.approval.answer : ''}</span></summary>
      <div class="tool-body">
        ${c.reason && html`<p class="small">${c.reason}</p>`}
        <div class="small muted">${t('tool.args')}</div><${Json} value=${c.arguments || '{}'} />
        <div class="small muted">${t('tool.result')}</div><${Json} value=${c.result || ''} />
      </div></details>`) : html`<p class="muted small">—</p>`}
    ${(tr.stages || []).length > 0 && html`<h3>${t('tr.stages')}</h3>
    <table class="grid"><tbody>${(tr.stages || []).map((s) => html`<tr>
      <td><code>${s.stage}</code>${s.tool_plugin ? html` <span class="muted small">${s.tool_plugin}</span>` : null}</td>
      <td>${s.handlers}</td><td>${ms(s.duration_ms)}</td><td class="small">${(s.changed || []).join(', ')}</td>
      <td class="wide-col"><${Bar} value=${s.duration_ms} max=${total} /></td></tr>`)}</tbody></table>`}
  </div>`;
}

// Traces is the list of traces, or one trace when id is set.
export function Traces({ id }) {
  return html`<div class="page">
    <div class="page-head">${id ? html`<${Link} href="/traces" class="ghost">← ${t('nav.traces')}</${Link}>` : html`<h1>${t('nav.traces')}</h1>`}</div>
    ${id ? html`<${One} id=${id} />` : html`<${List} />`}
  </div>`;
}
