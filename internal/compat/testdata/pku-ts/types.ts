// Every name of the PKU harness plugin model (seed 001), written as a PKU
// plugin writes it and type-checked against the SDK's index.d.ts by
// internal/compat/pku_ts_types_test.go.
import {
  CONTEXT_MARK, cleanTranscript, definePlugin, definePreference, defineTool, openAITranscribe, resolveDynamic,
  speechErrorMessage, z,
  type Actor, type Capability, type ContextInput, type DataSourceDef, type Dynamic, type KV, type ModelPricing,
  type OcrDocument, type OcrProviderDef, type PluginDef, type PluginLegacy, type PluginPreferenceDef,
  type PluginTranslation, type ProviderAccount, type ProviderAuth, type ProviderBalance, type ProviderConfig,
  type ProviderDef, type ProviderModel, type SettingContext, type SettingValue, type SpeechAudio, type SpeechConfig,
  type SpeechProviderDef, type SpeechStream, type SpeechStreamHandlers, type ToolAssessment, type ToolContext,
  type ToolDef, type ToolEffect, type TurnInfo,
} from '@hearth-agent/plugin-sdk';

const actor: Actor = 'scheduler';
const caps: Capability[] = ['network', 'campus-network', 'cloud', 'phone-control', 'ongoing'];
const effect: ToolEffect = 'public';
const turnOf = (ctx: ToolContext): TurnInfo | undefined => ctx.turn;
const kvOf = (ctx: ToolContext): KV => ctx.kv;
const title: Dynamic<string> = (services) => (services.settings ? '标题' : '');
const mark: string = CONTEXT_MARK.deleted + CONTEXT_MARK.corrected + CONTEXT_MARK.arrow;

const prefs: PluginPreferenceDef<boolean> = definePreference({
  title: '允许截图', kind: 'boolean', input: z.boolean(),
  get: async (c: SettingContext) => (await c.kv.get<boolean>('shots')) ?? false,
  set: async (c, v) => { await c.kv.set('shots', v); },
});
const value: SettingValue = ['a', 'b'];

const assess = async (input: { to: string }): Promise<ToolEffect | ToolAssessment> =>
  ({ effect: 'money', target: { label: `付给 ${input.to}` } });

const tool: ToolDef = defineTool({
  title: '付款', description: title, input: z.object({ to: z.string() }), effect: 'write',
  resolveEffect: assess, grant: true, alwaysAsk: false, serial: true, dayScoped: false, untrusted: false,
  userOnly: false, onDemand: false,
  execute: async ({ to }, ctx: ToolContext) => {
    const who: Actor = ctx.actor;
    const p = ctx.provider ? await ctx.provider('main') : undefined;
    return { to, who, grant: ctx.grant, base: p?.baseURL, images: ctx.turn?.acceptsImages };
  },
});

const ds: DataSourceDef = { title: '余额', tool: 'pay', args: {}, ttlMs: 60_000 };
const tr: PluginTranslation = {
  name: 'Pay', tools: { pay: { title: 'Pay' } }, preferences: { shots: { title: 'Screenshots' } },
  widgets: { w: { title: 'W' } }, commands: { c: { prompt: 'p' } }, scopes: { 'a.example': 'A' },
};
const legacy: PluginLegacy = { pluginIds: ['old'], tools: { 'old.pay': 'pay' }, widgets: { 'old.w': 'w' } };

const auth: ProviderAuth = 'apiKey';
const pricing: ModelPricing = { currency: 'CNY', inputCacheHit: 0.2, inputCacheMiss: 2, output: 3,
  peak: { multiplier: 2, utcOffsetMinutes: 480, weekdays: [1, 2], hours: [[9, 18]] } };
const model: ProviderModel = { id: 'm', contextWindow: 128_000, inputModalities: ['text', 'image'], pricing };
const balance: ProviderBalance = { currency: 'CNY', total: 1, granted: 0, toppedUp: 1 };
const account: ProviderAccount = { available: true, balances: [balance] };
const provider: ProviderDef = {
  name: 'P', description: 'd', auth, defaultBaseURL: 'https://a.example/v1', models: [model], defaultModel: 'm',
  efforts: ['low', 'high', 'max'], listModels: async (c: ProviderConfig) => [{ id: c.model }],
  balance: async () => account, createModel: (c: ProviderConfig) => c.baseURL,
};

const handlers: SpeechStreamHandlers = { onText: (text) => void text };
const stream = async (_c: SpeechConfig, h: SpeechStreamHandlers): Promise<SpeechStream> => ({
  send: (pcm) => h.onText(pcm), finish: async () => '', cancel: () => {},
});
const transcribe = (c: SpeechConfig, a: SpeechAudio, s?: AbortSignal): Promise<string> => openAITranscribe(c, a, s);
const speech: SpeechProviderDef = {
  name: 'S', description: 'd', defaultBaseURL: 'https://a.example/v1', models: [{ id: 's', name: 'S' }],
  defaultModel: 's', credentialFrom: 'main', transcribe, stream,
};
const ocr: OcrProviderDef = {
  name: 'O', credentialFrom: 'main',
  recognize: async (c, doc: OcrDocument) => `## Page 1\n${doc.name} ${c.baseURL}`,
};

const context = async (input: ContextInput): Promise<string | undefined> =>
  `${input.query} ${String(await input.kv.get('x'))} ${resolveDynamic(title, input.services)}`;

export const plugin: PluginDef = definePlugin({
  id: 'pay', name: '付款', description: '付款。', version: '1.0.0', maxAgentSteps: 5, icon: 'card', core: false,
  requires: caps, cloud: { optional: true }, preferences: { shots: prefs }, defaultModes: { money: 'ask', [effect]: 'off' },
  scopes: ['a.example'], tools: { pay: tool }, dataSources: { balance: ds }, providers: { main: provider },
  speech: { asr: speech }, ocr: { doc: ocr }, instructions: title, context, contributes: {}, i18n: { en: tr }, legacy,
});

export const used = [actor, turnOf, kvOf, mark, value, handlers, cleanTranscript('x'), speechErrorMessage(500, 'x')];
