// The PKU harness plugin model's helpers beyond definePlugin/defineTool
// (seed 001): preferences, dynamic values, the context marks, and the
// speech helpers. index.js re-exports everything here.

/** The error of the parts of the PKU model Hearth loads but does not run yet. */
export const NOT_SUPPORTED = 'not supported by this host yet';

const KINDS = ['choice', 'boolean', 'text', 'list'];

/**
 * Returns the preference unchanged; it exists for type checking, and
 * checks what a host would refuse later.
 */
export function definePreference(def) {
  if (!def || typeof def !== 'object') throw new Error('definePreference needs an object');
  if (!KINDS.includes(def.kind)) throw new Error(`preference kind ${JSON.stringify(def.kind)} must be one of ${KINDS.join(', ')}`);
  for (const f of ['get', 'set']) if (typeof def[f] !== 'function') throw new Error(`preference ${JSON.stringify(def.title)}: ${f} must be a function`);
  if (!def.input || typeof def.input.safeParse !== 'function') throw new Error(`preference ${JSON.stringify(def.title)}: input must be a zod schema`);
  if (def.kind === 'choice' && !Array.isArray(def.options)) throw new Error(`preference ${JSON.stringify(def.title)}: a choice needs options`);
  return def;
}

/** A Dynamic value now: a function is called with the host's services. */
export function resolveDynamic(value, services) {
  return typeof value === 'function' ? value(services) : value;
}

/** The marks of context lines that take back a fact shown before. */
export const CONTEXT_MARK = Object.freeze({ deleted: '[已删除]', corrected: '[更正]', arrow: ' → ' });

/** Removes control tokens such as <|zh|> and extra white space. */
export function cleanTranscript(text) {
  return String(text ?? '').replace(/<\|[^|>]*\|>/g, ' ').replace(/\s+/g, ' ').trim();
}

/** An error response as "<status>: <message>", the message taken from JSON when there is one. */
export function speechErrorMessage(status, body) {
  let message = typeof body === 'string' ? body : JSON.stringify(body ?? '');
  try {
    const j = typeof body === 'string' ? JSON.parse(body) : body;
    const m = j?.error?.message ?? j?.message ?? j?.error ?? j?.msg;
    if (typeof m === 'string' && m) message = m;
  } catch { /* not JSON: the text itself */ }
  message = String(message).trim() || 'no message';
  return `${status}: ${message.length > 300 ? message.slice(0, 300) + '…' : message}`;
}

/**
 * POST {baseURL}/audio/transcriptions with the file and the model as
 * multipart, and returns the cleaned text (OpenAI's format).
 */
export async function openAITranscribe(config, audio, signal) {
  const form = new FormData();
  form.append('file', audio.file, audio.name);
  form.append('model', config.model);
  const headers = config.credential ? { Authorization: `Bearer ${config.credential}` } : {};
  const doFetch = config.fetch ?? globalThis.fetch;
  const res = await doFetch(`${String(config.baseURL).replace(/\/+$/, '')}/audio/transcriptions`, { method: 'POST', body: form, headers, signal });
  const body = await res.text();
  if (!res.ok) throw new Error(speechErrorMessage(res.status, body));
  let text;
  try { text = JSON.parse(body).text; } catch { text = body; }
  return cleanTranscript(text);
}

/** The wire form of preferences: data, and the JSON Schema of input. */
export function wirePreferences(plugin, inputSchema) {
  if (!plugin.preferences) return undefined;
  return Object.fromEntries(Object.entries(plugin.preferences).map(([name, pref]) => [name, {
    title: pref.title, description: pref.description, kind: pref.kind, options: pref.options,
    schema: inputSchema(pref.input), screen: pref.screen,
  }]));
}

const has = (f) => typeof f === 'function';
const models = (list) => (list ?? []).map((m) => ({ ...m }));

/** The wire form of models a provider's listModels returned: data only. */
export function wireModels(list) {
  return list.map((m) => {
    if (typeof m?.id !== 'string' || m.id === '') throw new Error('listModels: a model has no id');
    return JSON.parse(JSON.stringify(m));
  });
}

/** The wire form of a provider's balance answer: { available, balances }. */
export function wireAccount(acc) {
  if (!acc || !Array.isArray(acc.balances)) throw new Error('balance: the answer has no balances array');
  return {
    available: !!acc.available,
    balances: acc.balances.map((b) => {
      const n = (v) => (v === undefined ? undefined : Number(v));
      const out = { currency: String(b.currency ?? ''), total: Number(b.total), granted: n(b.granted), toppedUp: n(b.toppedUp) };
      if (!Number.isFinite(out.total)) throw new Error('balance: a total is not a number');
      return out;
    }),
  };
}

/** The function name of provider key, or a string saying why there is none. */
export function providerFunction(plugin, key, name) {
  const prov = Object.hasOwn(plugin.providers ?? {}, key) ? plugin.providers[key] : undefined;
  if (!prov) return `unknown provider ${key}`;
  if (!has(prov[name])) return `provider ${key} has no ${name}`;
  return prov[name].bind(prov);
}

/** ProviderConfig for a provider function: the host's fields and fetch. */
export function providerConfig(c, signal) {
  return {
    baseURL: String(c?.baseURL ?? ''), model: String(c?.model ?? ''), credential: c?.credential || undefined,
    fetch: (url, init = {}) => fetch(url, { signal, ...init }),
  };
}

/** The wire form of providers, speech and ocr: data, functions as flags. */
export function wireProviders(plugin) {
  const out = {};
  if (plugin.providers) {
    out.providers = Object.fromEntries(Object.entries(plugin.providers).map(([k, p]) => [k, {
      name: p.name, description: p.description ?? '', auth: p.auth, defaultBaseURL: p.defaultBaseURL ?? '',
      editableBaseURL: !!p.editableBaseURL, models: models(p.models), defaultModel: p.defaultModel ?? '',
      efforts: p.efforts ? [...p.efforts] : undefined, credentialHint: p.credentialHint,
      hasListModels: has(p.listModels), hasSignIn: has(p.signIn), hasBalance: has(p.balance),
    }]));
  }
  if (plugin.speech) {
    out.speech = Object.fromEntries(Object.entries(plugin.speech).map(([k, s]) => [k, {
      name: s.name, description: s.description ?? '', defaultBaseURL: s.defaultBaseURL ?? '',
      editableBaseURL: !!s.editableBaseURL, models: models(s.models), defaultModel: s.defaultModel ?? '',
      credentialHint: s.credentialHint, keyURL: s.keyURL, credentialFrom: s.credentialFrom,
      hasTranscribe: has(s.transcribe), hasStream: has(s.stream),
    }]));
  }
  if (plugin.ocr) {
    out.ocr = Object.fromEntries(Object.entries(plugin.ocr).map(([k, o]) => [k, { name: o.name, credentialFrom: o.credentialFrom ?? '' }]));
  }
  return out;
}

/** Checks what definePlugin can check of the PKU parts. */
export function checkPKU(def) {
  for (const [k, ds] of Object.entries(def.dataSources ?? {})) {
    if (!def.tools?.[ds.tool]) throw new Error(`data source ${k}: tool ${JSON.stringify(ds.tool)} is not a tool of plugin ${def.id}`);
    if (!(Number(ds.ttlMs) > 0)) throw new Error(`data source ${k}: ttlMs must be a positive number`);
  }
  for (const [k, p] of Object.entries(def.preferences ?? {})) {
    if (/token|password|passwd|secret|api[_-]?key|credential/i.test(k)) {
      throw new Error(`preference ${k}: preferences are not secret (the assistant reads and changes every one); keep keys and passwords out of them`);
    }
    definePreference(p);
  }
}
