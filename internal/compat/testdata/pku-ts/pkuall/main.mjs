// A test plugin that uses every name of the PKU harness plugin model
// (seed 001) through Hearth's TypeScript SDK; internal/compat/pku_ts_test.go
// runs it and checks what Hearth does with each part.
import {
  CONTEXT_MARK, cleanTranscript, definePlugin, definePreference, defineTool, openAITranscribe, resolveDynamic,
  serve, speechErrorMessage, z,
} from '@hearth-agent/plugin-sdk';

const modeKey = 'pref.mode';

export const plugin = definePlugin({
  id: 'pkuall',
  name: 'PKU 全部',
  description: '用到 PKU 插件模型的每个名字。',
  version: '1.0.0',
  maxAgentSteps: 12,
  icon: 'card',
  core: false,
  requires: ['network'],
  scopes: ['api.example.com'],
  defaultModes: { money: 'ask' },
  preferences: {
    mode: definePreference({
      title: '模式',
      description: '工具回答的语气。',
      kind: 'choice',
      options: [{ value: 'calm', label: '平静' }, { value: 'loud', label: '大声' }],
      input: z.enum(['calm', 'loud']),
      get: async (c) => (await c.kv.get(modeKey)) ?? 'calm',
      set: async (c, v) => { await c.kv.set(modeKey, v); },
    }),
    tags: definePreference({
      title: '标签', kind: 'list', input: z.array(z.string()),
      get: async (c) => (await c.kv.get('pref.tags')) ?? ['a'],
      set: async (c, v) => { await c.kv.set('pref.tags', v); },
    }),
  },
  tools: {
    status: defineTool({
      title: '状态',
      // Dynamic<string>: Hearth asks for it when it builds a request.
      description: () => `状态工具，第 ${++describes} 次描述`,
      input: z.object({}),
      effect: 'read',
      dayScoped: true,
      execute: async (_in, ctx) => {
        const mode = await ctx.kv.get(modeKey) ?? 'calm';
        let provider;
        try { await ctx.provider?.('example'); } catch (e) { provider = e instanceof Error ? e.message : String(e); }
        return {
          mode, actor: ctx.actor, pluginId: ctx.pluginId, tainted: ctx.turn?.tainted ?? null, provider,
          cloud: ctx.cloud ?? null,
          marks: [CONTEXT_MARK.deleted, CONTEXT_MARK.corrected, CONTEXT_MARK.arrow],
          clean: cleanTranscript('<|zh|><|NEUTRAL|>  你好   世界 '),
          err: speechErrorMessage(401, '{"error":{"message":"bad key"}}'),
          dyn: resolveDynamic((s) => typeof s.settings.get, ctx.services),
          transcribe: typeof openAITranscribe,
        };
      },
    }),
    pay: defineTool({
      title: '付款', description: '付款给某人。', input: z.object({ to: z.string(), amount: z.number() }), effect: 'write',
      resolveEffect: async ({ to, amount }) => ({ effect: amount > 0 ? 'money' : 'read', target: { label: `付给 ${to}` } }),
      execute: async ({ to }) => `paid ${to}`,
    }),
  },
  dataSources: {
    today: { title: '今天', tool: 'status', args: {}, ttlMs: 60_000 },
  },
  providers: {
    example: {
      name: 'Example', description: 'OpenAI-compatible models from example.com', auth: 'apiKey',
      defaultBaseURL: 'https://api.example.com/v1',
      models: [{ id: 'example-large', name: 'Example Large', contextWindow: 128_000, inputModalities: ['text', 'image'],
        pricing: { currency: 'CNY', inputCacheHit: 0.2, inputCacheMiss: 2, output: 3 } }],
      defaultModel: 'example-large', efforts: ['low', 'high'],
      createModel: () => ({}),
      balance: async () => ({ available: true, balances: [{ currency: 'CNY', total: 1 }] }),
    },
  },
  speech: {
    asr: {
      name: '语音', description: '语音识别', defaultBaseURL: 'https://api.example.com/v1',
      models: [{ id: 'sense', name: 'Sense' }], defaultModel: 'sense', credentialFrom: 'example',
      transcribe: openAITranscribe,
    },
  },
  ocr: {
    doc: { name: '文档识别', credentialFrom: 'example', recognize: async () => '## Page 1' },
  },
  instructions: (services) => `用 pkuall__status 查状态（${typeof services.settings}）。`,
  context: async ({ query, kv }) => `最近的问题：${query}；偏好：${(await kv.get(modeKey)) ?? 'calm'}`,
  contributes: { widgets: { card: { title: '卡片' } } },
  i18n: {
    en: {
      name: 'PKU all', description: 'Uses every name.',
      tools: { status: { title: 'Status' } },
      preferences: { mode: { title: 'Mode', options: { calm: 'Calm', loud: 'Loud' } } },
      dataSources: { today: { title: 'Today' } },
      scopes: { 'api.example.com': 'Example API' },
    },
  },
  legacy: { pluginIds: ['pku-old'], tools: { 'pku-old.getStatus': 'status' }, widgets: { 'pku-old.card': 'card' } },
});

let describes = 0;

serve(plugin);
