// main.js: the web UI's shell: token check, navigation, the pending
// approvals indicator, and the page for the current route.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { html } from 'htm/preact';
import { takeToken, token, setToken, checkToken, onUnauthorized, onUntrusted, recheck, get } from './api.js';
import { Icon, Logo } from './icons.js';
import { t, lang, setLang } from './i18n.js';
import { useSignal } from './state.js';
import { route, navigate, approvals, online, connect } from './store.js';
import { Chat } from './chat.js';
import { Plugins } from './plugins.js';
import { Settings } from './settings.js';
import { Memory } from './memory.js';
import { Knowledge } from './knowledge.js';
import { Traces } from './traces.js';
import { Providers } from './providers.js';
import { Usage } from './usage.js';
import { ApprovalCard } from './approval.js';
import { Widgets, useWidgets, widgets } from './widgets.js';
import { Link, Ticks } from './ui.js';

takeToken();
// Pasting the printed address (…/#token=…) into a tab already on the UI
// changes only the fragment, which loads nothing: take the token then.
addEventListener('hashchange', () => {
  if (/(?:^#|&)token=/.test(location.hash)) { takeToken(); location.reload(); }
});

const pages = [
  ['/chat', 'nav.chat', 'chat'], ['/plugins', 'nav.plugins', 'plugins'], ['/settings', 'nav.settings', 'settings'],
  ['/memory', 'nav.memory', 'memory'], ['/knowledge', 'nav.knowledge', 'knowledge'], ['/traces', 'nav.traces', 'traces'],
  ['/providers', 'nav.providers', 'providers'], ['/usage', 'nav.usage', 'usage'],
];

// NoToken is the page without a (good) token: how to get one, in both
// languages, and a form to paste it, checked before it is kept.
function NoToken({ refused, insecure, onToken }) {
  const [v, setV] = useState('');
  const [wrong, setWrong] = useState(false);
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  const save = async (e) => {
    e.preventDefault();
    const tok = v.trim();
    setBusy(true); setErr(''); setWrong(false);
    try {
      if (await checkToken(tok)) { setToken(tok); onToken(); } else setWrong(true);
    } catch (x) { setErr(x.message); }
    setBusy(false);
  };
  const other = lang.value === 'zh' ? 'en' : 'zh';
  return html`<div class="auth"><div class="card">
    <${Logo} size=${48} /><h1>${t('auth.title')}</h1>
    ${refused && !wrong && html`<p class="error"><${Ticks} text=${t('auth.bad')} /></p>`}
    ${insecure && !wrong && html`<p class="error" data-testid="token-insecure">${t('auth.insecure')}</p>`}
    <p data-testid="token-body"><${Ticks} text=${t('auth.body')} /></p>
    <pre class="cmd">hearth token</pre>
    <form onSubmit=${save} class="row" data-testid="token-form">
      <input class="grow" type="password" name="token" autocomplete="off" spellcheck="false" data-testid="token-input"
        aria-label=${t('auth.paste')} placeholder=${t('auth.paste')} value=${v} onInput=${(e) => { setV(e.target.value); setWrong(false); }} />
      <button class="primary" disabled=${!v.trim() || busy}>${t('auth.save')}</button>
    </form>
    ${wrong && html`<p class="error" data-testid="token-wrong"><${Ticks} text=${t('auth.wrong')} /></p>`}
    ${err && html`<p class="error">${t('common.error', { m: err })}</p>`}
    <p class="muted small">${t('auth.tab')}</p>
    <p class="muted small" lang=${other === 'zh' ? 'zh-CN' : 'en'}><${Ticks} text=${t('auth.other', {}, other)} /></p>
  </div></div>`;
}

// Untrusted is the page shown when, after the connection broke, the
// server at this address could not prove it knows the token: the token
// was not sent, and is not until it does. In both languages.
function Untrusted() {
  const [busy, setBusy] = useState(false);
  const [still, setStill] = useState(false);
  const other = lang.value === 'zh' ? 'en' : 'zh';
  const again = async () => { setBusy(true); setStill(false); if (!await recheck()) setStill(true); setBusy(false); };
  return html`<div class="auth"><div class="card" data-testid="untrusted">
    <${Logo} size=${48} /><h1 class="error">${t('auth.squatter')}</h1>
    <p lang=${other === 'zh' ? 'zh-CN' : 'en'}><strong>${t('auth.squatter', {}, other)}</strong></p>
    <p><${Ticks} text=${t('auth.squatterBody')} /></p>
    <button class="primary" onClick=${again} disabled=${busy}>${t('auth.recheck')}</button>
    ${still && html`<p class="error small">${t('auth.squatter')}</p>`}
  </div></div>`;
}

function ApprovalsBell() {
  const list = useSignal(approvals);
  const [open, setOpen] = useState(false);
  return html`<div class="bell">
    <button class=${'bell-btn' + (list.length ? ' hot' : '')} data-testid="approvals-bell" onClick=${() => setOpen(!open)} title=${t('appr.title')}>
      <${Icon} name="bell" />${list.length ? html`<span class="badge">${list.length}</span>` : null}
    </button>
    ${open && html`<div class="bell-panel">
      <div class="row between"><strong>${t('appr.title')}</strong><button class="ghost" onClick=${() => setOpen(false)}><${Icon} name="x" /></button></div>
      ${list.length ? list.map((a) => html`<${ApprovalCard} key=${a.id} approval=${a} showChannel />`) : html`<p class="muted">${t('appr.none')}</p>`}
    </div>`}
  </div>`;
}

function Page({ path }) {
  const [, first, rest] = /^\/([^/]*)\/?(.*)$/.exec(path) || [];
  switch (first) {
    case '': case 'chat': return html`<${Chat} id=${rest || ''} />`;
    case 'plugins': return html`<${Plugins} />`;
    case 'settings': return html`<${Settings} />`;
    case 'memory': return html`<${Memory} />`;
    case 'knowledge': return html`<${Knowledge} />`;
    case 'traces': return html`<${Traces} id=${rest} />`;
    case 'providers': case 'setup': return html`<${Providers} />`;
    case 'usage': return html`<${Usage} />`;
    default: return html`<${Chat} id="" />`;
  }
}

// PluginWidgets is the plugins' widgets panel, once the token is good.
function PluginWidgets() {
  const list = useWidgets();
  return html`<${Widgets} list=${list} />`;
}

function App() {
  const path = useSignal(route);
  useSignal(lang);
  const up = useSignal(online);
  const hasWidgets = useSignal(widgets).length > 0;
  const [refused, setRefused] = useState(false);
  const [menu, setMenu] = useState(false);
  const [tok, setTok] = useState(token());
  const [untrusted, setUntrusted] = useState(null);
  useEffect(() => onUnauthorized(() => setRefused(true)), []);
  useEffect(() => onUntrusted((reason) => setUntrusted(reason)), []);
  useEffect(() => {
    if (!tok || refused) return;
    get('/v1/health').catch(() => {}); // a refused token shows the token page
    connect();
    // A fresh Hearth with no model goes to the onboarding first.
    get('/v1/providers').then((r) => {
      if (r && r.current === '' && !location.pathname.startsWith('/providers')) navigate('/providers');
    }).catch(() => {});
  }, [tok, refused]);
  useEffect(() => { setMenu(false); }, [path]);
  if (untrusted === 'proof') return html`<${Untrusted} />`;
  if (!tok || refused || untrusted === 'insecure') return html`<${NoToken} refused=${refused} insecure=${untrusted === 'insecure'} onToken=${() => { setRefused(false); setUntrusted(null); setTok(token()); }} />`;
  const section = '/' + (path.split('/')[1] || 'chat');
  return html`<div class=${'shell' + (menu ? ' menu-open' : '') + (hasWidgets ? ' has-widgets' : '')}>
    <header class="top">
      <button class="ghost menu-btn" aria-label="menu" onClick=${() => setMenu(!menu)}><${Icon} name="menu" /></button>
      <${Link} href="/chat" class="brand"><${Logo} size=${26} /> Hearth</${Link}>
      <div class="grow"></div>
      ${!up && html`<span class="offline" title=${t('chat.offline')}>${t('chat.offline')}</span>`}
      <${ApprovalsBell} />
      <button class="ghost lang" data-testid="lang" onClick=${() => setLang(lang.value === 'zh' ? 'en' : 'zh')}><${Icon} name="globe" /> ${t('lang.switch')}</button>
    </header>
    <nav class="side">
      ${pages.map(([href, key, icon]) => html`<${Link} href=${href} class=${section === href ? 'active' : ''}><${Icon} name=${icon} />${t(key)}</${Link}>`)}
    </nav>
    <main class="content"><${Page} path=${path} /></main>
    <${PluginWidgets} />
  </div>`;
}

render(html`<${App} />`, document.getElementById('app'));
