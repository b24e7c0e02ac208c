// usage.js: the usage page: what today's model calls spent against the
// budgets of config.json, and the ledger's totals by day, source, model,
// conversation or plugin (GET /v1/usage?by=...). A call without a known
// price is "unpriced", never a cost of zero.
import { useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get } from './api.js';
import { t } from './i18n.js';
import { Link, Status, useLoad } from './ui.js';
import { money, tokens } from './money.js';

const groups = ['day', 'source', 'model', 'session', 'plugin'];

// Meter is spent out of a limit: the figures and a bar, or the figure
// alone without a limit.
function Meter({ label, spent, limit, testid }) {
  return html`<div class="meter" data-testid=${testid}>
    <span class="muted small">${label}</span>
    <b>${limit ? t('usage.of', { v: spent.text, limit: limit.text }) : spent.text}</b>
    ${limit ? html`<progress max=${limit.n} value=${Math.min(spent.n, limit.n)} class=${spent.n >= limit.n ? 'over' : ''} />`
      : html`<span class="muted small">${t('usage.noLimit')}</span>`}
  </div>`;
}

// Today is the budget day's spending against the day's limits, and the
// limits each conversation has.
function Today({ rep }) {
  const b = rep.budgets || {};
  const day = b.day || {}, session = b.session || {};
  const spent = rep.today || { tokens: 0, money: {} };
  const cur = Object.keys(spent.money || {}).sort();
  if (day.money && !cur.includes(day.money.currency)) cur.unshift(day.money.currency);
  const sessionLimits = [session.tokens ? t('usage.tokensN', { n: tokens(session.tokens) }) : '',
    session.money ? money(session.money.amount, session.money.currency) : ''].filter(Boolean);
  return html`<div class="card" data-testid="usage-today">
    <div class="row between"><h2>${t('usage.today')}</h2><span class="muted small">${spent.day}</span></div>
    <div class="stats">
      <${Meter} testid="today-tokens" label=${t('usage.tokens')} spent=${{ n: spent.tokens, text: tokens(spent.tokens) }}
        limit=${day.tokens ? { n: day.tokens, text: tokens(day.tokens) } : null} />
      ${cur.map((c) => html`<${Meter} testid="today-money" label=${t('usage.money', { c })}
        spent=${{ n: (spent.money || {})[c] || 0, text: money((spent.money || {})[c] || 0, c) }}
        limit=${day.money && day.money.currency === c ? { n: day.money.amount, text: money(day.money.amount, c) } : null} />`)}
    </div>
    <p class="small muted" data-testid="usage-budgets">${!rep.budgets ? t('usage.noBudgets')
      : sessionLimits.length ? t('usage.sessionLimit', { v: sessionLimits.join(' · ') }) : t('usage.noSessionLimit')}</p>
  </div>`;
}

// keyOf is how a row's key reads for its grouping.
function keyOf(by, k, label) {
  if (by === 'session') {
    return k === '0' || !k ? t('usage.noSession')
      : html`<${Link} href=${'/chat/' + k}>#${k}</${Link}>${label ? html` <span class="muted small" data-testid="session-label">${label}</span>` : ''}`;
  }
  if (by === 'plugin' && !k) return t('usage.noPlugin');
  return k || '—';
}

// Totals is the ledger's sums by one key, a row per key and currency,
// with a line of grand totals by currency.
function Totals({ rep }) {
  const rows = rep.totals || [];
  if (!rows.length) return html`<p class="muted" data-testid="usage-empty">${t('usage.none')}</p>`;
  const sum = { calls: 0, input: 0, cached: 0, output: 0, money: {}, unpriced: 0 };
  for (const r of rows) {
    sum.calls += r.calls; sum.input += r.input_tokens; sum.cached += r.cached_tokens; sum.output += r.output_tokens;
    if (r.currency) sum.money[r.currency] = (sum.money[r.currency] || 0) + r.cost;
    sum.unpriced += r.unpriced;
  }
  const cost = (r) => (r.currency ? money(r.cost, r.currency) : '');
  const total = [...Object.entries(sum.money).sort(([a], [b]) => (a < b ? -1 : 1)).map(([c, v]) => money(v, c)), sum.unpriced ? t('usage.unpricedCalls', { n: sum.unpriced }) : ''].filter(Boolean).join(' + ');
  return html`<div class="table-scroll"><table class="grid usage" data-testid="usage-totals">
    <thead><tr><th>${t('usage.by.' + rep.by)}</th><th class="num">${t('usage.calls')}</th><th class="num">${t('usage.input')}</th>
      <th class="num">${t('usage.cached')}</th><th class="num">${t('usage.output')}</th><th class="num">${t('usage.cost')}</th></tr></thead>
    <tbody>${rows.map((r) => html`<tr data-testid="usage-row" class=${r.currency ? '' : 'unpriced'}>
      <td>${keyOf(rep.by, r.key, r.label)}</td><td class="num">${r.calls}</td>
      <td class="num" title=${r.input_tokens}>${tokens(r.input_tokens)}</td><td class="num" title=${r.cached_tokens}>${tokens(r.cached_tokens)}</td>
      <td class="num" title=${r.output_tokens}>${tokens(r.output_tokens)}</td>
      <td class="num" data-testid="usage-cost">${r.currency ? cost(r) : html`<span class="muted">${t('usage.unpriced')}</span>`}${r.currency && r.unpriced
        ? html` <span class="muted small">${t('usage.unpricedCalls', { n: r.unpriced })}</span>` : ''}</td>
    </tr>`)}</tbody>
    <tfoot><tr data-testid="usage-sum"><th>${t('tr.total')}</th><th class="num">${sum.calls}</th><th class="num">${tokens(sum.input)}</th>
      <th class="num">${tokens(sum.cached)}</th><th class="num">${tokens(sum.output)}</th><th class="num">${total}</th></tr></tfoot>
  </table></div>`;
}

// Usage is the usage page.
export function Usage() {
  const [by, setBy] = useState('day');
  const [rep, error] = useLoad(() => get('/v1/usage?by=' + by), [by]);
  return html`<div class="page">
    <div class="page-head row between"><h1>${t('nav.usage')}</h1>
      <label class="row small">${t('usage.groupBy')}
        <select data-testid="usage-by" value=${by} onChange=${(e) => setBy(e.target.value)}>
          ${groups.map((g) => html`<option value=${g}>${t('usage.by.' + g)}</option>`)}
        </select></label></div>
    ${!rep || rep.by !== by ? html`<${Status} error=${error} />` : html`<${Today} rep=${rep} /><${Totals} rep=${rep} />`}
  </div>`;
}
