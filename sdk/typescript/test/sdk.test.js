import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { Connection, currentCallToken, definePlugin, defineTool, inputSchema, ToolError } from '../index.js';

test('zod inputs become JSON Schema', () => {
  const s = inputSchema(z.object({ city: z.string().describe('城市名称'), days: z.number().int().min(1).optional() }));
  assert.equal(s.type, 'object');
  assert.deepEqual(s.required, ['city']);
  assert.equal(s.properties.city.description, '城市名称');
  assert.equal(s.properties.days.minimum, 1);
  assert.deepEqual(inputSchema(undefined), { type: 'object', properties: {} });
});

test('definitions are checked', () => {
  assert.throws(() => definePlugin({ id: 'Bad Id', name: 'x', version: '1.0.0', tools: {} }));
  assert.throws(() => defineTool({ description: 'x', effect: 'teleport', execute() {} }));
});

function host(plugin) {
  const toPlugin = new PassThrough();
  const fromPlugin = new PassThrough();
  const conn = new Connection(plugin, toPlugin, fromPlugin);
  conn.run();
  const lines = [];
  const waiters = [];
  const kv = new Map();
  const progress = [];
  const searches = []; // knowledge.search params, call tokens and all
  let buf = '';
  fromPlugin.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      if (msg.method === 'tools.register' || msg.method === 'stages.register' || msg.method === 'hooks.register') {
        lines.push(msg);
        toPlugin.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: {} }) + '\n');
        continue;
      }
      if (msg.method === 'tool.progress') { // a notification: no answer
        progress.push(msg.params);
        continue;
      }
      if (msg.method === 'knowledge.search') { // one of Hearth's services, as the wire has it
        searches.push(msg.params);
        toPlugin.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: [{ name: 'wifi', content: `密码 (${msg.params.query}, ${msg.params.topK})` }] }) + '\n');
        continue;
      }
      if (msg.method === 'settings.get') {
        toPlugin.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: msg.params.key === 'unit' ? { value: 'c', found: true } : { found: false } }) + '\n');
        continue;
      }
      if (msg.method?.startsWith('kv.')) { // Hearth's storage, as the wire has it
        const { key, value } = msg.params;
        let result = {};
        if (msg.method === 'kv.get') result = kv.has(key) ? { value: JSON.parse(kv.get(key)), found: true } : { found: false };
        if (msg.method === 'kv.set') kv.set(key, JSON.stringify(value));
        if (msg.method === 'kv.delete') kv.delete(key);
        toPlugin.write(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }) + '\n');
        continue;
      }
      waiters.shift()?.(msg);
    }
  });
  const request = (id, method, params) => new Promise((resolve) => {
    waiters.push(resolve);
    toPlugin.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
  });
  return { request, registered: lines, progress, searches, cancel: (id) => toPlugin.write(JSON.stringify({ jsonrpc: '2.0', method: '$/cancel', params: { id } }) + '\n') };
}

const plugin = definePlugin({
  id: 'tsweather', name: '天气', version: '1.0.0',
  tools: {
    query: defineTool({
      title: '查询天气', description: 'weather', effect: 'read',
      input: z.object({ city: z.string(), days: z.number().default(1) }),
      execute: (input, ctx) => ({ ...input, actor: ctx.actor, ...(ctx.injectedBy ? { injectedBy: ctx.injectedBy } : {}) }),
    }),
    refuse: defineTool({ description: 'no', execute: () => { throw new ToolError('不行'); } }),
    text: defineTool({ description: 'text', execute: async () => 'plain' }),
    lookup: defineTool({
      description: 'uses the knowledge base and settings', effect: 'read',
      execute: async (_, ctx) => ({
        hits: await ctx.services.knowledge.search('wifi 密码', 2),
        unit: await ctx.services.settings.get('unit'),
        missing: (await ctx.services.settings.get('nope')) ?? null,
      }),
    }),
    count: defineTool({
      description: 'counts its calls in the plugin storage', effect: 'write',
      execute: async (_, ctx) => {
        const n = ((await ctx.kv.get('n')) ?? 0) + 1;
        await ctx.kv.set('n', n);
        if (n === 2) await ctx.kv.delete('n');
        return { n, after: (await ctx.kv.get('n')) ?? null };
      },
    }),
    long: defineTool({
      description: 'reports progress', effect: 'read',
      execute: (_, ctx) => {
        if (!ctx.progress) return 'no progress';
        for (let i = 1; i <= 3; i++) ctx.progress(i, 3, `step ${i}`);
        return 'reported';
      },
    }),
    wait: defineTool({
      description: 'waits', effect: 'read',
      execute: (_, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'))),
    }),
  },
});

test('handshake, tools, errors and cancellation', async () => {
  const h = host(plugin);
  const init = await h.request(1, 'initialize', { protocolVersions: [1], plugin: 'tsweather' });
  assert.equal(init.result.protocolVersion, 1);
  const query = h.registered.find((m) => m.params.name === 'query').params;
  assert.equal(query.effect, 'read');
  assert.equal(query.title, '查询天气');
  assert.deepEqual(query.parameters.required, ['city']);

  const r = await h.request(2, 'tool.call', { tool: 'query', args: { city: '北京' }, context: { actor: 'agent' } });
  assert.deepEqual(r.result.value, { city: '北京', days: 1, actor: 'agent' });
  const relayed = await h.request(7, 'tool.call', { tool: 'query', args: { city: '上海' }, context: { actor: 'agent', injectedBy: 'relay' } });
  assert.deepEqual(relayed.result.value, { city: '上海', days: 1, actor: 'agent', injectedBy: 'relay' });
  assert.deepEqual((await h.request(3, 'tool.call', { tool: 'refuse', args: {} })).error, { code: -32003, message: '不行' });
  assert.equal((await h.request(4, 'tool.call', { tool: 'text', args: {} })).result.text, 'plain');
  assert.equal((await h.request(5, 'nope', {})).error.code, -32601);

  const waiting = h.request(6, 'tool.call', { tool: 'wait', args: {} });
  h.cancel(6);
  assert.equal((await waiting).error.code, -32800);
});

test('version mismatch', async () => {
  const h = host(plugin);
  assert.equal((await h.request(1, 'initialize', { protocolVersions: [9] })).error.code, -32001);
});

test('the plugin storage goes to Hearth', async () => {
  const h = host(plugin);
  await h.request(1, 'initialize', { protocolVersions: [1], plugin: 'tsweather' });
  assert.deepEqual((await h.request(2, 'tool.call', { tool: 'count', args: {} })).result.value, { n: 1, after: 1 });
  assert.deepEqual((await h.request(3, 'tool.call', { tool: 'count', args: {} })).result.value, { n: 2, after: null });
});

test('Hearth services over the protocol', async () => {
  const h = host(plugin);
  await h.request(1, 'initialize', { protocolVersions: [1], plugin: 'tsweather' });
  assert.deepEqual((await h.request(2, 'tool.call', { tool: 'lookup', args: {} })).result.value,
    { hits: [{ name: 'wifi', content: '密码 (wifi 密码, 2)' }], unit: 'c', missing: null });
});

test('memory and knowledge requests carry the served request\'s call token', async () => {
  const h = host(plugin);
  await h.request(1, 'initialize', { protocolVersions: [1], plugin: 'tsweather' });
  await h.request(2, 'tool.call', { tool: 'lookup', args: {}, callToken: 'tok-1' });
  await h.request(3, 'tool.call', { tool: 'lookup', args: {} });
  await h.request(4, 'tool.resolveEffect', { tool: 'lookup', args: {}, callToken: 'not-a-turn' });
  assert.deepEqual(h.searches.map((p) => p.callToken), ['tok-1', undefined]);
  assert.equal(currentCallToken(), undefined);
});

const bank = definePlugin({
  id: 'bank', name: '银行', version: '1.0.0',
  defaultModes: { money: 'ask', public: 'off' }, requires: ['network'],
  instructions: 'Pay with bank__pay.',
  context: ({ query }) => `balance 42, asked: ${query}`,
  tools: {
    transfer: defineTool({
      description: 'transfer', effect: 'write', channels: ['web'],
      input: z.object({ to: z.string() }),
      resolveEffect: async ({ to }) => {
        if (to === 'mallory') throw new Error('mallory is a known scammer');
        if (to === 'self') return 'read';
        if (to === 'garbage') return 'teleport';
        return { effect: 'money', target: { label: `转账给 ${to}` } };
      },
      execute: () => 'ok',
    }),
  },
  decide: ({ tool, args }) => (args.to === 'eve' ? { verdict: 'deny', reason: 'eve is blocked' } : tool === 'x__null' ? null : { verdict: 'allow' }),
});

test('the manifest, resolveEffect and the decision hook travel', async () => {
  const h = host(bank);
  const init = await h.request(1, 'initialize', { protocolVersions: [1], plugin: 'bank' });
  const m = init.result.manifest;
  assert.deepEqual(m.defaultModes, { money: 'ask', public: 'off' });
  assert.deepEqual(m.requires, ['network']);
  assert.equal(m.instructions, 'Pay with bank__pay.');
  assert.equal(m.hasContext, true);
  const transfer = h.registered.find((r) => r.params.name === 'transfer').params;
  assert.equal(transfer.hasResolveEffect, true);
  assert.deepEqual(transfer.channels, ['web']);
  assert.ok(h.registered.some((r) => r.method === 'hooks.register'));

  const resolve = (id, to) => h.request(id, 'tool.resolveEffect', { tool: 'transfer', args: { to } });
  assert.deepEqual((await resolve(2, 'bob')).result, { effect: 'money', target: { label: '转账给 bob' } });
  assert.deepEqual((await resolve(3, 'self')).result, { effect: 'read' });
  assert.match((await resolve(4, 'mallory')).error.message, /scammer/);
  assert.match((await resolve(5, 'garbage')).error.message, /teleport/);

  const decide = (id, tool, to) => h.request(id, 'hook.decide', { id: 0, tool, args: { to }, context: { actor: 'agent' } });
  assert.deepEqual((await decide(6, 'bank__transfer', 'eve')).result, { verdict: 'deny', reason: 'eve is blocked' });
  assert.deepEqual((await decide(7, 'bank__transfer', 'bob')).result, { verdict: 'allow', reason: '' });
  assert.ok((await decide(8, 'x__null', 'bob')).error, 'a null decision must be an error');

  assert.deepEqual((await h.request(9, 'plugin.context', { query: 'hi' })).result, { text: 'balance 42, asked: hi' });
});

test('progress reports go out as tool.progress with the call\'s token', async () => {
  const h = host(plugin);
  await h.request(1, 'initialize', { protocolVersions: [1], plugin: 'tsweather' });
  assert.equal((await h.request(2, 'tool.call', { tool: 'long', args: {}, progressToken: 7 })).result.text, 'reported');
  assert.deepEqual(h.progress, [1, 2, 3].map((i) => ({ token: 7, done: i, total: 3, message: `step ${i}` })));
  assert.equal((await h.request(3, 'tool.call', { tool: 'long', args: {} })).result.text, 'no progress');
  assert.equal(h.progress.length, 3);
});
