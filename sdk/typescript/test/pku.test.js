// The PKU harness parts of the SDK (seed 001) over the wire, against a
// scripted host: preferences, dynamic descriptions, context input,
// providers as data, input injection and the LLM API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { PassThrough } from 'node:stream';
import {
  CONTEXT_MARK, cleanTranscript, Connection, definePlugin, definePreference, defineTool, NOT_SUPPORTED,
  openAITranscribe, resolveDynamic, speechErrorMessage, z,
} from '../index.js';

// pkuHost runs plugin over streams and answers its calls as Hearth would:
// kv.* from a map, input.* and llm.* recorded.
function pkuHost(plugin) {
  const toPlugin = new PassThrough();
  const fromPlugin = new PassThrough();
  new Connection(plugin, toPlugin, fromPlugin).run();
  const kv = new Map();
  const calls = [];
  const waiters = new Map();
  let buf = '';
  const answer = (id, result) => toPlugin.write(JSON.stringify({ jsonrpc: '2.0', id, result }) + '\n');
  fromPlugin.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (msg.method) {
        calls.push(msg);
        const p = msg.params;
        if (msg.method === 'kv.get') answer(msg.id, kv.has(p.key) ? { value: kv.get(p.key), found: true } : { found: false });
        else if (msg.method === 'kv.set') { kv.set(p.key, p.value); answer(msg.id, {}); }
        else if (msg.method === 'input.injectSync') answer(msg.id, { text: `answer to ${p.text}` });
        else if (msg.method === 'llm.listSources') answer(msg.id, ['deepseek', 'qwen']);
        else if (msg.method === 'llm.currentSource') answer(msg.id, 'deepseek');
        else answer(msg.id, {});
        continue;
      }
      waiters.get(msg.id)?.(msg);
    }
  });
  let next = 0;
  const request = (method, params) => new Promise((resolve) => {
    const id = ++next;
    waiters.set(id, resolve);
    toPlugin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  return { request, calls, kv };
}

let described = 0;
const pku = definePlugin({
  id: 'pku', name: '测试', description: '测试。', version: '1.0.0', scopes: [], maxAgentSteps: 3,
  preferences: {
    mode: definePreference({
      title: '模式', kind: 'choice', options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }],
      input: z.enum(['a', 'b']),
      get: async (c) => (await c.kv.get('mode')) ?? 'a',
      set: async (c, v) => { await c.kv.set('mode', v); },
    }),
  },
  tools: {
    dyn: defineTool({
      description: () => `描述 ${++described}`, effect: 'read', input: z.object({}),
      execute: async (_in, ctx) => {
        let provider;
        try { await ctx.provider('x'); } catch (e) { provider = e.message; }
        return {
          provider,
          injected: await ctx.services.input.injectSync('hi', { channel: 'plugin:pku', noMemory: true }),
          sources: await ctx.services.llm.listSources(),
          current: await ctx.services.llm.currentSource(),
          set: await ctx.services.llm.setSource('qwen'),
          fire: await ctx.services.input.inject('later'),
        };
      },
    }),
  },
  dataSources: { d: { title: 'D', tool: 'dyn', ttlMs: 1000 } },
  providers: { x: { name: 'X', description: 'x', auth: 'none', defaultBaseURL: 'http://x', models: [{ id: 'm' }], defaultModel: 'm', createModel: () => null, signIn: async () => 't' } },
  speech: { s: { name: 'S', description: 's', defaultBaseURL: 'http://x', models: [], defaultModel: '', stream: async () => ({}) } },
  ocr: { o: { name: 'O', credentialFrom: 'x', recognize: async () => '' } },
  context: async ({ query, kv, services }) => `${query}/${await kv.get('mode') ?? 'none'}/${typeof services.llm.listSources}`,
});

test('the PKU manifest goes on the wire as data', async () => {
  const h = pkuHost(pku);
  const init = await h.request('initialize', { protocolVersions: [1], plugin: 'pku' });
  const m = init.result.manifest;
  assert.equal(m.maxAgentSteps, 3);
  assert.deepEqual(m.preferences.mode, {
    title: '模式', kind: 'choice', options: [{ value: 'a', label: 'A' }, { value: 'b', label: 'B' }],
    schema: { type: 'string', enum: ['a', 'b'] },
  });
  assert.deepEqual(m.dataSources, { d: { title: 'D', tool: 'dyn', ttlMs: 1000 } });
  assert.equal(m.providers.x.hasSignIn, true);
  assert.equal(m.providers.x.hasBalance, false);
  assert.equal(m.speech.s.hasStream, true);
  assert.equal(m.speech.s.hasTranscribe, false);
  assert.deepEqual(m.ocr, { o: { name: 'O', credentialFrom: 'x' } });
  const reg = h.calls.find((c) => c.method === 'tools.register').params;
  assert.equal(reg.dynamicDescription, true);
  assert.equal(reg.description, '描述 1');
  assert.deepEqual((await h.request('tool.describe', { tool: 'dyn' })).result, { text: '描述 2' });
  assert.equal((await h.request('tool.describe', { tool: 'nope' })).error.code, -32005);
});

test('preferences: get, set through input, refusals', async () => {
  const h = pkuHost(pku);
  await h.request('initialize', { protocolVersions: [1], plugin: 'pku' });
  assert.deepEqual((await h.request('preference.get', { name: 'mode' })).result, { value: 'a' });
  assert.deepEqual((await h.request('preference.set', { name: 'mode', value: 'b' })).result, {});
  assert.equal(h.kv.get('mode'), 'b');
  const bad = await h.request('preference.set', { name: 'mode', value: 'c' });
  assert.equal(bad.error.code, -32602);
  assert.match(bad.error.message, /invalid value for pku\.mode/);
  assert.equal(h.kv.get('mode'), 'b');
  assert.equal((await h.request('preference.get', { name: 'toString' })).error.code, -32005);
  assert.deepEqual((await h.request('plugin.context', { query: 'q' })).result, { text: 'q/b/function' });
});

test('input injection, the LLM API and providers from a tool', async () => {
  const h = pkuHost(pku);
  await h.request('initialize', { protocolVersions: [1], plugin: 'pku' });
  const r = await h.request('tool.call', { tool: 'dyn', args: {}, context: { actor: 'agent' } });
  assert.deepEqual(r.result.value, {
    provider: `provider pku.x: ${NOT_SUPPORTED}`, injected: 'answer to hi', sources: ['deepseek', 'qwen'], current: 'deepseek',
  });
  const sent = (m) => h.calls.find((c) => c.method === m).params;
  assert.deepEqual(sent('input.injectSync'), { text: 'hi', channel: 'plugin:pku', interrupt: false, noMemory: true });
  assert.deepEqual(sent('input.inject'), { text: 'later', channel: '', interrupt: false, noMemory: false });
  assert.deepEqual(sent('llm.setSource'), { name: 'qwen' });
});

test('definitions the host would refuse fail at once', () => {
  const base = { id: 'p1', name: 'p', version: '1.0.0', tools: {} };
  assert.throws(() => definePreference({ title: 't', kind: 'slider', input: z.number(), get: async () => 1, set: async () => {} }), /kind/);
  assert.throws(() => definePreference({ title: 't', kind: 'choice', input: z.string(), get: async () => '', set: async () => {} }), /options/);
  assert.throws(() => definePlugin({ ...base, dataSources: { d: { title: 'd', tool: 'nope', ttlMs: 1 } } }), /not a tool/);
  const pref = definePreference({ title: 't', kind: 'text', input: z.string(), get: async () => '', set: async () => {} });
  assert.throws(() => definePlugin({ ...base, preferences: { api_key: pref } }), /not secret/);
});

test('dynamic values, context marks and the speech helpers', async () => {
  assert.equal(resolveDynamic('x', {}), 'x');
  assert.equal(resolveDynamic((s) => s.n + 1, { n: 1 }), 2);
  assert.deepEqual({ ...CONTEXT_MARK }, { deleted: '[已删除]', corrected: '[更正]', arrow: ' → ' });
  assert.ok(Object.isFrozen(CONTEXT_MARK));
  assert.equal(cleanTranscript('<|en|><|HAPPY|> hello\n  world '), 'hello world');
  assert.equal(speechErrorMessage(429, '{"message":"slow down"}'), '429: slow down');
  assert.equal(speechErrorMessage(500, 'plain text'), '500: plain text');
  assert.equal(speechErrorMessage(502, ''), '502: no message');

  const seen = [];
  const srv = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => { body += d; });
    req.on('end', () => {
      seen.push({ url: req.url, auth: req.headers.authorization, body });
      if (req.url !== '/v1/audio/transcriptions') { res.statusCode = 403; res.end('{"error":{"message":"no"}}'); return; }
      res.end('{"text":"<|zh|>你好  "}');
    });
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${srv.address().port}`;
  const audio = { file: new Blob(['RIFF']), uri: 'file:///x.wav', name: 'x.wav', mimeType: 'audio/wav' };
  try {
    assert.equal(await openAITranscribe({ baseURL: `${base}/v1`, model: 'm1', credential: 'k', fetch }, audio), '你好');
    await assert.rejects(openAITranscribe({ baseURL: `${base}/x`, model: 'm1', fetch }, audio), /^Error: 403: no$/);
  } finally {
    srv.close();
  }
  assert.equal(seen[0].auth, 'Bearer k');
  assert.match(seen[0].body, /name="model"\r\n\r\nm1/);
  assert.match(seen[0].body, /name="file"; filename="x.wav"/);
  assert.equal(seen[1].auth, undefined);
});

// A provider plugin's listModels and balance, asked by the host with the
// user's configuration; they fetch from a loopback server speaking an
// OpenAI-compatible /models and DeepSeek's /user/balance.
test('provider.listModels and provider.balance', async () => {
  const srv = createServer((req, res) => {
    if (req.headers.authorization !== 'Bearer sk-user-key') { res.writeHead(401); res.end('{}'); return; }
    res.setHeader('Content-Type', 'application/json');
    if (req.url === '/v1/models') res.end(JSON.stringify({ data: [{ id: 'a' }, { id: 'b' }] }));
    else if (req.url === '/user/balance') {
      res.end(JSON.stringify({ is_available: true, balance_infos: [{ currency: 'CNY', total_balance: '110.00', granted_balance: '10.00', topped_up_balance: '100.00' }] }));
    } else { res.writeHead(404); res.end(); }
  });
  await new Promise((r) => srv.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${srv.address().port}`;
  try {
    const plugin = definePlugin({
      id: 'prov', name: 'Prov', version: '0.1.0', tools: {},
      providers: {
        ex: {
          name: 'Ex', description: 'e', auth: 'apiKey', defaultBaseURL: base + '/v1', models: [{ id: 'a' }], defaultModel: 'a',
          createModel: () => null,
          listModels: async ({ baseURL, credential, fetch }) => {
            const r = await fetch(`${baseURL}/models`, { headers: { Authorization: `Bearer ${credential}` } });
            if (!r.ok) throw new Error(`listing failed: ${r.status}`);
            return (await r.json()).data.map((m) => ({ id: m.id, contextWindow: 64000 }));
          },
          balance: async ({ baseURL, credential, fetch }) => {
            const r = await fetch(`${baseURL.replace(/\/v1$/, '')}/user/balance`, { headers: { Authorization: `Bearer ${credential}` } });
            const b = await r.json();
            return { available: b.is_available, balances: b.balance_infos.map((i) => ({ currency: i.currency, total: Number(i.total_balance), granted: Number(i.granted_balance), toppedUp: Number(i.topped_up_balance) })) };
          },
        },
        bare: { name: 'Bare', description: 'b', auth: 'none', defaultBaseURL: base, models: [], defaultModel: '', createModel: () => null },
      },
    });
    const h = pkuHost(plugin);
    const init = await h.request('initialize', { protocolVersions: [1], plugin: 'prov' });
    assert.equal(init.result.manifest.providers.ex.hasListModels, true);
    assert.equal(init.result.manifest.providers.ex.hasBalance, true);
    const config = { baseURL: base + '/v1', model: 'a', credential: 'sk-user-key' };
    assert.deepEqual((await h.request('provider.listModels', { provider: 'ex', config })).result,
      { models: [{ id: 'a', contextWindow: 64000 }, { id: 'b', contextWindow: 64000 }] });
    assert.deepEqual((await h.request('provider.balance', { provider: 'ex', config })).result,
      { account: { available: true, balances: [{ currency: 'CNY', total: 110, granted: 10, toppedUp: 100 }] } });
    const rejected = await h.request('provider.listModels', { provider: 'ex', config: { ...config, credential: 'wrong' } });
    assert.match(rejected.error.message, /listing failed: 401/);
    assert.equal((await h.request('provider.balance', { provider: 'bare', config })).error.code, -32005);
    assert.equal((await h.request('provider.listModels', { provider: 'toString', config })).error.code, -32005);
  } finally {
    srv.close();
  }
});
