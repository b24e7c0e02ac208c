// settings.js: every namespace's settings (plugins and preferences) as
// forms generated from their definitions.
import { html } from 'htm/preact';
import { get, put } from './api.js';
import { t } from './i18n.js';
import { SettingsForm } from './form.js';
import { Status, useLoad } from './ui.js';

// Settings is the settings page.
export function Settings() {
  const [data, error, reload] = useLoad(() => get('/v1/settings'));
  if (!data) return html`<div class="page"><h1>${t('nav.settings')}</h1><${Status} error=${error} /></div>`;
  const groups = data.plugins || [];
  return html`<div class="page">
    <div class="page-head"><h1>${t('nav.settings')}</h1></div>
    ${!groups.length && html`<p class="muted">${t('set.none')}</p>`}
    ${groups.map((g) => {
      const ns = g.plugin;
      const defs = (g.settings || []).map((x) => ({ ...x, display_name: x.label }));
      const values = Object.fromEntries((g.settings || []).map((x) => [x.key, { value: x.value, set: x.set }]));
      return html`<section class="card" key=${ns} data-namespace=${ns}>
        <h2>${ns === 'core' ? 'Hearth' : ns}</h2>
        <${SettingsForm} testid=${'settings-' + ns} defs=${defs} values=${values}
          save=${async (changes) => { await put('/v1/settings/' + encodeURIComponent(ns), { values: changes }); reload(); }} />
      </section>`;
    })}
  </div>`;
}
