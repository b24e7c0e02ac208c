// Hearth plugin SDK for TypeScript and JavaScript.
//
// definePlugin / defineTool mirror the PKU harness shapes; a tool's `input`
// is a zod schema, sent to Hearth as JSON Schema (Hearth validates calls
// before they reach you) and parsed again here so `execute` gets typed,
// defaulted values. serve() speaks the Hearth plugin protocol
// (docs/protocol.md): newline-delimited JSON-RPC 2.0 on stdin/stdout.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import {
  checkPKU, NOT_SUPPORTED, providerConfig, providerFunction, resolveDynamic, wireAccount, wireModels, wirePreferences, wireProviders,
} from './pku.js';

/** The zod this SDK converts; use it for tool inputs. */
export { z };
export { CONTEXT_MARK, cleanTranscript, definePreference, NOT_SUPPORTED, openAITranscribe, resolveDynamic, speechErrorMessage } from './pku.js';

// callTokens holds the call token of the Hearth request being served:
// tool.call, stage.run, hook.decide and plugin.context carry one, and the
// memory and knowledge requests made while serving it (in the same async
// flow) send it back, so Hearth acts in that turn's conversation. Outside
// any Hearth acts in the global scope; once the request was answered,
// work it left behind (a timer, a promise) still sends the token, and
// Hearth refuses its writes (CallEnded) and reads in the global scope.
// docs/protocol.md, "Memory scopes and call tokens".
const callTokens = new AsyncLocalStorage();
const TOKEN_METHODS = ['tool.call', 'stage.run', 'hook.decide', 'plugin.context'];

/** The call token of the Hearth request being served, or undefined. */
export function currentCallToken() { return callTokens.getStore(); }

export const PROTOCOL_VERSION = 1;
export const SDK_VERSION = '0.1.0';
const EFFECTS = ['read', 'write', 'money', 'public'];

/** Returns the plugin definition unchanged; it exists for type checking. */
export function definePlugin(def) {
  if (!/^[a-z0-9][a-z0-9-]{1,40}$/.test(def.id)) throw new Error(`plugin id ${JSON.stringify(def.id)} must match ^[a-z0-9][a-z0-9-]{1,40}$`);
  checkPKU(def);
  return def;
}

/** Returns the tool definition unchanged; it exists for type checking. */
export function defineTool(def) {
  if (def.effect !== undefined && !EFFECTS.includes(def.effect)) throw new Error(`effect must be one of ${EFFECTS.join(', ')}`);
  if (def.resolveEffect !== undefined && typeof def.resolveEffect !== 'function') throw new Error('resolveEffect must be a function');
  return def;
}

/** A failure the model should read (the message is shown to it). */
export class ToolError extends Error {}

/** The JSON Schema Hearth receives for a tool's zod input. */
export function inputSchema(input) {
  const schema = input ? z.toJSONSchema(input, { target: 'draft-2020-12', unrepresentable: 'any', io: 'input' }) : { type: 'object', properties: {} };
  delete schema.$schema;
  if (schema.type === undefined) schema.type = 'object';
  return schema;
}

/**
 * The tools.register parameters for a tool. A Dynamic description is
 * resolved now, the fallback, and Hearth asks tool.describe for it later.
 */
export function wireTool(name, tool, services) {
  const dynamic = typeof tool.description === 'function';
  return {
    name, description: String(resolveDynamic(tool.description, services) ?? ''), parameters: inputSchema(tool.input),
    dynamicDescription: dynamic,
    title: tool.title ?? '', effect: tool.effect ?? 'write',
    untrusted: !!tool.untrusted, userOnly: !!tool.userOnly, onDemand: !!tool.onDemand,
    grant: !!tool.grant, alwaysAsk: !!tool.alwaysAsk, serial: !!tool.serial, dayScoped: !!tool.dayScoped,
    noMemory: !!tool.noMemory,
    channels: tool.channels ?? [], timeoutMs: tool.timeoutMs ?? 0,
    hasResolveEffect: typeof tool.resolveEffect === 'function',
  };
}

/**
 * The manifest sent at initialize: Hearth applies defaultModes, requires
 * and instructions as for a compiled-in plugin, and asks `context` (and
 * `instructions` when it is a function) before each turn.
 */
export function wireManifest(plugin, services) {
  const dynamic = typeof plugin.instructions === 'function';
  return {
    id: plugin.id, name: plugin.name, description: plugin.description ?? '', version: plugin.version,
    icon: plugin.icon, core: !!plugin.core, requires: plugin.requires ?? [], scopes: plugin.scopes ?? [],
    defaultModes: plugin.defaultModes ?? {},
    instructions: dynamic ? String(plugin.instructions(services) ?? '') : (plugin.instructions ?? ''),
    dynamicInstructions: dynamic, hasContext: typeof plugin.context === 'function',
    contributes: plugin.contributes, i18n: plugin.i18n, legacy: plugin.legacy,
    maxAgentSteps: plugin.maxAgentSteps, cloud: plugin.cloud,
    preferences: wirePreferences(plugin, inputSchema),
    dataSources: plugin.dataSources,
    ...wireProviders(plugin),
  };
}

/** The preference a host names, or an RPC error. */
function preference(plugin, name) {
  const pref = Object.hasOwn(plugin.preferences ?? {}, name) ? plugin.preferences[name] : undefined;
  if (!pref) throw new RPCError(-32005, `unknown preference ${name}`);
  return pref;
}

/**
 * A resolveEffect answer for the wire: an effect, or an assessment with
 * an effect and an optional target. Anything else is an error, which
 * Hearth reads as a refusal.
 */
export function wireAssessment(r) {
  const a = typeof r === 'string' ? { effect: r } : r;
  if (!a || typeof a !== 'object' || !EFFECTS.includes(a.effect)) {
    throw new Error(`resolveEffect returned ${JSON.stringify(r)}; want one of ${EFFECTS.join(', ')} or { effect, target }`);
  }
  return a.target ? { effect: a.effect, target: a.target } : { effect: a.effect };
}

/** A decide answer for the wire; anything but a verdict is an error (a refusal). */
function wireDecision(d) {
  if (!d || typeof d !== 'object' || !['allow', 'ask', 'deny'].includes(d.verdict)) {
    throw new Error(`decide returned ${JSON.stringify(d)}; want { verdict: 'allow' | 'ask' | 'deny', reason? }`);
  }
  return { verdict: d.verdict, reason: d.reason ?? '' };
}

/** input.inject's parameters. */
function injection(text, o) {
  return {
    text: String(text), channel: o.channel ?? '', chatId: o.chatId, userId: o.userId, groupId: o.groupId,
    interrupt: !!o.interrupt, noMemory: !!o.noMemory,
  };
}

class RPCError extends Error {
  constructor(code, message) { super(message); this.code = code; }
}

/** The error code of CallEnded. */
export const CALL_ENDED = -32007;

/**
 * A memory or knowledge write refused because the request it was made for
 * has been answered (or its token is not this plugin's): work a call left
 * behind may not write once the call returned.
 */
export class CallEnded extends RPCError {}

/** One side of a plugin connection over two streams. */
export class Connection {
  constructor(plugin, input, output) {
    this.plugin = plugin;
    this.output = output;
    this.nextId = 0;
    this.pending = new Map();
    this.running = new Map();
    this.rl = createInterface({ input, crlfDelay: Infinity });
  }

  send(msg) { this.output.write(JSON.stringify(msg) + '\n'); }

  /**
   * Hearth's services, over the protocol; plugin.json must declare each
   * group used: "settings", "memory", "knowledge" (docs/protocol.md).
   */
  get services() {
    const value = async (method, params) => { const r = await this.call(method, params); return r?.found ? r.value : undefined; };
    // A memory or knowledge request names the Hearth request being served.
    const mem = (method, params) => {
      const callToken = callTokens.getStore();
      return this.call(method, callToken ? { ...params, callToken } : params);
    };
    return this._services ??= {
      settings: {
        get: (key) => value('settings.get', { key }),
        set: async (key, v) => { await this.call('settings.set', { key, value: v === undefined ? null : v }); },
        list: (prefix = '') => this.call('settings.list', { prefix }),
      },
      memory: {
        recall: (query, depth = 1) => mem('memory.recall', { query, depth }),
        commit: async (triples) => { await mem('memory.commit', { triples }); },
        appendText: async (event) => { await mem('memory.appendText', event); },
        queryDocs: (query, topK = 5) => mem('memory.docQuery', { query, topK }),
        insertDoc: async (doc) => (await mem('memory.docInsert', doc)).id,
        removeDoc: async (id) => { await mem('memory.docRemove', { id }); },
      },
      knowledge: {
        search: (query, topK = 5) => mem('knowledge.search', { query, topK }),
        add: async (name, content) => { await mem('knowledge.add', { name, content }); },
        list: () => mem('knowledge.list', {}),
      },
      // Input injection: a turn in the plugin's own conversation (or, with
      // the input.channels / input.user groups, another channel's or a
      // person's), with the plugin's rights, never the owner's.
      input: {
        inject: async (text, opts = {}) => { await this.call('input.inject', injection(text, opts)); },
        injectSync: async (text, opts = {}) => (await this.call('input.injectSync', injection(text, opts))).text,
      },
      llm: {
        listSources: () => this.call('llm.listSources', {}),
        currentSource: () => this.call('llm.currentSource', {}),
        setSource: async (name) => { await this.call('llm.setSource', { name }); },
      },
    };
  }

  /** The plugin's private storage, kept by Hearth (plugin.json must declare "kv"). */
  get kv() {
    return this._kv ??= {
      get: async (key) => { const r = await this.call('kv.get', { key }); return r?.found ? r.value : undefined; },
      set: async (key, value) => { await this.call('kv.set', { key, value: value === undefined ? null : value }); },
      delete: async (key) => { await this.call('kv.delete', { key }); },
    };
  }

  call(method, params) {
    const id = `ts-${++this.nextId}`;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  async run() {
    for await (const line of this.rl) {
      if (!line.trim()) continue;
      let msg;
      try { msg = JSON.parse(line); } catch { process.stderr.write(JSON.stringify({ level: 'WARN', msg: 'ignoring a line that is not JSON' }) + '\n'); continue; }
      if (msg.method === '$/cancel') {
        this.running.get(JSON.stringify(msg.params?.id))?.abort();
      } else if (msg.method) {
        this.handle(msg); // concurrently
      } else if (msg.id !== undefined && this.pending.has(msg.id)) {
        const p = this.pending.get(msg.id);
        this.pending.delete(msg.id);
        if (msg.error) p.reject(new (msg.error.code === CALL_ENDED ? CallEnded : RPCError)(msg.error.code, msg.error.message)); else p.resolve(msg.result);
      }
    }
    for (const p of this.pending.values()) p.reject(new Error('connection closed'));
  }

  async handle(msg) {
    const key = JSON.stringify(msg.id);
    const ac = new AbortController();
    if (msg.id !== undefined) this.running.set(key, ac);
    let reply;
    try {
      const params = msg.params ?? {};
      const token = TOKEN_METHODS.includes(msg.method) && typeof params.callToken === 'string' ? params.callToken : undefined;
      const result = await callTokens.run(token, () => this.dispatch(msg.method, params, ac.signal));
      reply = { jsonrpc: '2.0', id: msg.id, result };
    } catch (e) {
      const code = e instanceof RPCError ? e.code : msg.method === 'tool.call' ? -32003 : -32603;
      if (!(e instanceof RPCError) && !(e instanceof ToolError)) process.stderr.write(JSON.stringify({ level: 'ERROR', msg: 'request failed', method: msg.method, error: String(e?.stack ?? e) }) + '\n');
      reply = { jsonrpc: '2.0', id: msg.id, error: { code, message: String(e?.message ?? e) } };
    } finally {
      this.running.delete(key);
    }
    if (msg.id === undefined) return;
    if (ac.signal.aborted) reply = { jsonrpc: '2.0', id: msg.id, error: { code: -32800, message: 'request cancelled' } };
    this.send(reply);
  }

  async dispatch(method, params, signal) {
    const p = this.plugin;
    switch (method) {
      case 'initialize': {
        if (!(params.protocolVersions ?? []).includes(PROTOCOL_VERSION)) {
          throw new RPCError(-32001, `the plugin speaks protocol version ${PROTOCOL_VERSION}; the host offered ${JSON.stringify(params.protocolVersions)}`);
        }
        for (const [name, tool] of Object.entries(p.tools ?? {})) await this.call('tools.register', wireTool(name, tool, this.services));
        this.stageIds = new Map();
        let i = 0;
        for (const [stage] of Object.entries(p.stages ?? {})) {
          this.stageIds.set(++i, stage);
          const reg = { id: i, stage };
          if ((p.guardStages ?? []).includes(stage)) reg.guard = true;
          await this.call('stages.register', reg);
        }
        if (typeof p.decide === 'function') await this.call('hooks.register', { id: 0 });
        return {
          protocolVersion: PROTOCOL_VERSION, sdkVersion: `ts-${SDK_VERSION}`, name: p.id, autoRestart: true,
          manifest: wireManifest(p, this.services),
        };
      }
      case 'tool.resolveEffect': {
        const tool = p.tools?.[params.tool];
        if (typeof tool?.resolveEffect !== 'function') throw new RPCError(-32005, `no resolveEffect for tool ${params.tool}`);
        const parsed = tool.input ? tool.input.safeParse(params.args ?? {}) : { success: true, data: params.args ?? {} };
        if (!parsed.success) throw new Error(`invalid arguments: ${parsed.error.message}`);
        return wireAssessment(await tool.resolveEffect(parsed.data, this.services));
      }
      case 'hook.decide': {
        if (typeof p.decide !== 'function') throw new RPCError(-32005, 'unknown decision hook');
        const c = params.context ?? {};
        return wireDecision(await p.decide({ tool: params.tool, args: params.args ?? {}, context: { ...c, signal } }));
      }
      case 'plugin.context': {
        if (typeof p.context !== 'function') throw new RPCError(-32005, 'the plugin has no context function');
        return { text: String((await p.context({ query: params.query ?? '', kv: this.kv, services: this.services })) ?? '') };
      }
      case 'tool.describe': {
        const tool = Object.hasOwn(p.tools ?? {}, params.tool) ? p.tools[params.tool] : undefined;
        if (!tool) throw new RPCError(-32005, `unknown tool ${params.tool}`);
        return { text: String(resolveDynamic(tool.description, this.services) ?? '') };
      }
      case 'preference.get': {
        const value = await preference(p, params.name).get({ kv: this.kv, services: this.services });
        return { value: value === undefined ? null : value };
      }
      case 'preference.set': {
        const pref = preference(p, params.name);
        const parsed = pref.input.safeParse(params.value);
        if (!parsed.success) throw new RPCError(-32602, `invalid value for ${p.id}.${params.name}: ${parsed.error.message}`);
        await pref.set({ kv: this.kv, services: this.services }, parsed.data);
        return {};
      }
      case 'provider.listModels': {
        const fn = providerFunction(p, params.provider, 'listModels');
        if (typeof fn === 'string') throw new RPCError(-32005, fn);
        const list = await fn(providerConfig(params.config, signal));
        if (!Array.isArray(list)) throw new Error(`provider ${p.id}.${params.provider}: listModels returned no array`);
        return { models: wireModels(list) };
      }
      case 'provider.balance': {
        const fn = providerFunction(p, params.provider, 'balance');
        if (typeof fn === 'string') throw new RPCError(-32005, fn);
        const acc = await fn(providerConfig(params.config, signal));
        return { account: wireAccount(acc) };
      }
      case 'plugin.instructions': {
        const text = resolveDynamic(p.instructions, this.services);
        return { text: String(text ?? '') };
      }
      case 'tool.call': {
        const tool = p.tools?.[params.tool];
        if (!tool) throw new RPCError(-32005, `unknown tool ${params.tool}`);
        const parsed = tool.input ? tool.input.safeParse(params.args ?? {}) : { success: true, data: params.args ?? {} };
        if (!parsed.success) throw new ToolError(`invalid arguments: ${parsed.error.message}`);
        const c = params.context ?? {};
        const ctx = {
          pluginId: c.pluginId ?? p.id, tool: c.tool, callId: c.callId, actor: c.actor ?? 'agent', effect: c.effect,
          turn: c.turn, channel: c.channel, chatId: c.chatId, userId: c.userId, groupId: c.groupId, grant: c.grant,
          injectedBy: c.injectedBy,
          kv: this.kv, services: this.services, signal,
          // Providers, speech and OCR load but do not run on this host yet.
          provider: async (key) => { throw new Error(`provider ${p.id}.${key}: ${NOT_SUPPORTED}`); },
          // Reports how far the call has got; Hearth shows it on the
          // user's channel. Absent when nobody watches the call.
          progress: params.progressToken ? (done, total = 0, message = '') => this.send({
            jsonrpc: '2.0', method: 'tool.progress',
            params: { token: params.progressToken, done: Number(done), total: Number(total), message: String(message) },
          }) : undefined,
        };
        const value = await tool.execute(parsed.data, ctx);
        if (typeof value === 'string') return { text: value };
        return { value: value ?? null, isError: !!(value && typeof value === 'object' && value.isError === true) };
      }
      case 'stage.run': {
        const stage = this.stageIds?.get(params.id);
        if (!stage) throw new RPCError(-32005, 'unknown stage handler');
        const ctx = params.context ?? {};
        const out = await p.stages[stage](ctx, this.services);
        return { context: out ?? ctx };
      }
      case 'speech.transcribe': {
        const def = Object.hasOwn(p.speech ?? {}, params.provider) ? p.speech[params.provider] : undefined;
        if (typeof def?.transcribe !== 'function') throw new RPCError(-32005, `no transcribe for speech provider ${params.provider}`);
        const mimeType = params.mimeType || 'audio/wav';
        const file = new Blob([Buffer.from(params.file ?? '', 'base64')], { type: mimeType });
        const config = {
          baseURL: params.baseURL ?? '', model: params.model ?? '', credential: params.credential || undefined, fetch: globalThis.fetch,
          webSocket: () => { throw new Error(`webSocket: ${NOT_SUPPORTED}`); },
        };
        const name = params.name || 'audio.wav';
        const text = await def.transcribe(config, { file, uri: `hearth:${name}`, name, mimeType }, signal);
        return { text: String(text ?? '') };
      }
      case 'ocr.recognize': {
        const def = Object.hasOwn(p.ocr ?? {}, params.provider) ? p.ocr[params.provider] : undefined;
        if (typeof def?.recognize !== 'function') throw new RPCError(-32005, `no recognize for OCR provider ${params.provider}`);
        const mimeType = params.mimeType || 'application/octet-stream';
        const file = new Blob([Buffer.from(params.file ?? '', 'base64')], { type: mimeType });
        const name = params.name || 'document';
        const config = { baseURL: params.baseURL ?? '', credential: params.credential ?? '', fetch: globalThis.fetch };
        return { text: String((await def.recognize(config, { file, uri: `hearth:${name}`, name, mimeType }, signal)) ?? '') };
      }
      case '$/ping': return 'pong';
      case 'shutdown': return {};
      default: throw new RPCError(-32601, `method not found: ${method}`);
    }
  }
}

let serving = false;

/** Whether serve was called in this process (run.js serves only when not). */
export function served() { return serving; }

/** Serve the plugin on stdin/stdout until Hearth closes stdin. */
export async function serve(plugin) {
  serving = true;
  const out = process.stdout;
  // Stray console.log output must not corrupt the protocol.
  console.log = (...args) => process.stderr.write(args.map(String).join(' ') + '\n');
  process.on('unhandledRejection', leftBehind);
  await new Connection(plugin, process.stdin, out).run();
}

// leftBehind hears the rejections nobody handles. A write refused because
// its call has returned (CallEnded), made by work the call left behind
// that nobody awaits (a fire-and-forget memory.commit), is logged, not the
// end of the plugin, which Node makes of an unhandled rejection: the other
// SDKs report it and go on. Any other one ends the process as Node would,
// unless the plugin listens for them itself.
function leftBehind(reason) {
  if (reason instanceof CallEnded) {
    process.stderr.write(JSON.stringify({ level: 'WARN', msg: 'a write nobody awaited was refused: its call had returned', error: reason.message }) + '\n');
    return;
  }
  if (process.listenerCount('unhandledRejection') > 1) return;
  throw reason;
}
