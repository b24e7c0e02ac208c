// widgets.js: the plugins' widgets panel (GET /v1/plugins/widgets),
// refreshed on the global stream's plugin.widgets event. Widgets are
// declarative: sparkline (inline SVG), table (cells {text, tone}; an
// action cell is a button that POSTs the action), badge (a button when
// it has an action), progress, metric and text. Plugin
// text is only ever rendered as text nodes, never as markup.
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { get, post } from './api.js';
import { t } from './i18n.js';
import { signal, useSignal } from './state.js';
import { onEvent } from './store.js';

// widgets is every plugin's widgets, kept up to date while the shell runs.
export const widgets = signal([]);

let loading = null;
export async function loadWidgets() {
  if (loading) return loading;
  loading = get('/v1/plugins/widgets').then((r) => { widgets.value = (r && r.widgets) || []; })
    .catch(() => { /* the panel stays as it was */ }).finally(() => { loading = null; });
  return loading;
}

// useWidgets loads the widgets and follows their changes.
export function useWidgets() {
  useEffect(() => {
    loadWidgets();
    return onEvent((name) => { if (name === 'plugin.widgets') loadWidgets(); });
  }, []);
  return useSignal(widgets);
}

// Sparkline draws data as a polyline in an SVG of fixed size.
function Sparkline({ data = [], color }) {
  if (!data.length) return html`<p class="muted small">${t('widget.empty')}</p>`;
  const w = 200, h = 40, min = Math.min(...data), max = Math.max(...data), span = max - min || 1;
  const pts = data.map((v, i) => `${(data.length === 1 ? w / 2 : (i * w) / (data.length - 1)).toFixed(1)},${(h - 2 - ((v - min) / span) * (h - 4)).toFixed(1)}`).join(' ');
  const last = data[data.length - 1];
  return html`<div class="spark" data-testid="widget-sparkline">
    <svg viewBox=${`0 0 ${w} ${h}`} width="100%" height=${h} preserveAspectRatio="none" role="img" aria-label=${t('widget.trend', { v: String(last) })}>
      <polyline fill="none" stroke=${color || 'currentColor'} stroke-width="2" points=${pts} />
    </svg>
    <span class="muted small">${String(last)}</span>
  </div>`;
}

// rowData is a table row as {column: text}, the data of an action.
const rowData = (columns, row) => JSON.stringify(Object.fromEntries(columns.map((c, i) => [c, (row[i] || {}).text || ''])));

function Table({ w, props, onAction }) {
  const columns = props.columns || [];
  return html`<div class="widget-table"><table data-testid="widget-table">
    <thead><tr>${columns.map((c) => html`<th>${c}</th>`)}</tr></thead>
    <tbody>${(props.rows || []).map((row) => html`<tr>${row.map((cell) => html`<td class=${cell.tone ? 'tone-' + cell.tone : ''}>
      ${cell.action && w.actions
        ? html`<button class="small" data-testid="widget-action" data-action=${cell.action}
            onClick=${() => onAction(cell.action, rowData(columns, row))}>${cell.text}</button>`
        : cell.text}</td>`)}</tr>`)}</tbody>
  </table></div>`;
}

function Widget({ w }) {
  const [msg, setMsg] = useState('');
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  const p = w.props || {};
  const onAction = async (action, data) => {
    setBusy(true); setMsg(''); setErr('');
    try {
      const r = await post(`/v1/plugins/${encodeURIComponent(w.plugin)}/widgets/${encodeURIComponent(w.widget_id)}/action`, { action, data });
      setMsg((r && r.result) || t('widget.done'));
      loadWidgets();
    } catch (e) { setErr(e.message); }
    setBusy(false);
  };
  let body;
  switch (w.type) {
    case 'sparkline': body = html`<${Sparkline} data=${p.data} color=${p.color} />`; break;
    case 'table': body = html`<${Table} w=${w} props=${p} onAction=${onAction} />`; break;
    case 'badge': {
      const cls = 'wbadge' + (p.tone ? ' tone-' + p.tone : '') + (p.pulse ? ' pulse' : '');
      body = p.action && w.actions
        ? html`<button class=${cls} data-testid="widget-badge" data-action=${p.action} onClick=${() => onAction(p.action, '')}>${p.text}</button>`
        : html`<span class=${cls} data-testid="widget-badge">${p.text}</span>`;
      break;
    }
    case 'progress': body = html`<div class="wprogress" data-testid="widget-progress">
        ${p.label && html`<span class="small">${p.label}</span>`}
        <progress class=${p.tone ? 'tone-' + p.tone : ''} value=${p.value || 0} max=${p.max || 100}></progress>
        <span class="muted small">${String(Math.round(((p.value || 0) / (p.max || 100)) * 100))}%</span></div>`; break;
    case 'metric': body = html`<div class="wmetric" data-testid="widget-metric">
        <span class="muted small">${p.label}</span> <strong class=${p.tone ? 'tone-' + p.tone : ''}>${p.text}</strong>
        ${p.delta && html` <span class=${'small ' + (p.delta.startsWith('-') ? 'tone-failed' : 'tone-success')}>${p.delta}</span>`}</div>`; break;
    default: body = html`<pre class="widget-text">${p.text}</pre>`;
  }
  return html`<section class="widget" data-testid="widget" data-plugin=${w.plugin} data-widget=${w.widget_id} aria-busy=${busy}>
    <header class="row between"><strong>${w.title || w.widget_id}</strong><span class="muted small">${w.plugin}</span></header>
    ${body}
    ${msg && html`<p class="muted small" data-testid="widget-result">${msg}</p>`}
    ${err && html`<p class="error small">${t('common.error', { m: err })}</p>`}
  </section>`;
}

// Widgets is the panel: nothing when no plugin declared a widget.
export function Widgets({ list }) {
  if (!list.length) return null;
  return html`<aside class="widgets" data-testid="widgets" aria-label=${t('widget.title')}>
    <h2 class="small muted">${t('widget.title')}</h2>
    ${list.map((w) => html`<${Widget} key=${w.plugin + '/' + w.widget_id} w=${w} />`)}
  </aside>`;
}
