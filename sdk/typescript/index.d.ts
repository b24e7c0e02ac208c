import { z } from 'zod';

/** The zod this SDK converts; use it for tool inputs. */
export { z };

export type ToolEffect = 'read' | 'write' | 'money' | 'public';
export type Actor = 'user' | 'agent' | 'scheduler';

export interface TurnInfo {
  sessionId?: string;
  /** The assistant already called an untrusted tool in this turn. */
  tainted: boolean;
  userAsked?: boolean;
  /** The turn's model reads images (Hearth does not tell yet: absent). */
  acceptsImages?: boolean;
}

export interface ToolContext {
  effect?: ToolEffect;
  pluginId: string;
  /** The tool's name inside the plugin. */
  tool: string;
  callId?: string;
  actor: Actor;
  turn?: TurnInfo;
  channel?: string;
  chatId?: string;
  userId?: string;
  groupId?: string;
  /**
   * The plugin that injected the turn's input; absent when a person on a
   * channel asked. A relay reports the person's channel and userId, so a
   * check for "the owner on the terminal" must also check this is absent.
   */
  injectedBy?: string;
  /** The user's answer to a `grant` tool's prompt. */
  grant?: 'once' | 'always';
  /** This plugin's private storage, kept by Hearth across restarts (plugin.json must declare "kv"). */
  kv: KV;
  /** Hearth's services; plugin.json must declare each group used ("settings", "memory", "knowledge"). */
  services: HostServices;
  /** Aborted when Hearth cancels the call (deadline, interrupt). */
  signal: AbortSignal;
  /**
   * Reports how far a long call has got: `done` out of `total` (0 or
   * absent when unknown) and a short message. Hearth shows it on the
   * user's channel, at most about ten a second. Absent when nobody
   * watches the call.
   */
  progress?: (done: number, total?: number, message?: string) => void;
  /**
   * The address and key of one of this plugin's own providers. This host
   * does not run providers yet: it rejects with "not supported by this
   * host yet".
   */
  provider?: (key: string) => Promise<{ baseURL: string; credential?: string }>;
  /** PKU harness Cloud; Hearth has none, so it is always absent. */
  cloud?: PluginCloud;
}

/** PKU harness Cloud bound to a plugin; Hearth has no Cloud. */
export type PluginCloud = Record<string, unknown>;
/** How a plugin uses PKU harness Cloud; kept as data by Hearth. */
export type CloudManifest = { optional?: boolean } & Record<string, unknown>;
/** Screens, settings rows, tabs, widgets, commands: data for channels that show them. */
export type Contributions = Record<string, unknown>;

export interface Entity { name: string; type: string; mention_count: number }
export interface Relation { source_name: string; target_name: string; relation_type: string }
export interface Triple { subject: string; relation: string; object: string }
export interface Doc { id?: string; title: string; content: string; score?: number }
export interface Knowledge { name: string; content: string }
/** What memory.recall found. */
export interface RecallResult { entities: Entity[]; relations: Relation[] }
/** One entry of the text memory; timestamp is in Unix milliseconds (absent or 0: now). */
export interface TextEvent { role: string; content: string; timestamp?: number; channel?: string }

export interface HostServices {
  settings: {
    /** This plugin's setting, or its declared default; undefined if neither. */
    get<T>(key: string): Promise<T | undefined>;
    set<T>(key: string, value: T): Promise<void>;
    list(prefix?: string): Promise<string[]>;
  };
  memory: {
    recall(query: string[], depth?: number): Promise<RecallResult>;
    commit(triples: Triple[]): Promise<void>;
    appendText(event: TextEvent): Promise<void>;
    queryDocs(query: string, topK?: number): Promise<Doc[]>;
    /** Returns the document's id (given one if it had none). */
    insertDoc(doc: Doc): Promise<string>;
    removeDoc(id: string): Promise<void>;
  };
  knowledge: {
    search(query: string, topK?: number): Promise<Knowledge[]>;
    add(name: string, content: string): Promise<void>;
    list(): Promise<string[]>;
  };
  /**
   * Input injection: a turn in the plugin's own conversation, with the
   * plugin's rights (never the owner's). Another channel needs the
   * "input.channels" group, a userId or groupId "input.user".
   */
  input: {
    inject(text: string, opts?: InjectOptions): Promise<void>;
    /** Waits for the answer and returns its text. */
    injectSync(text: string, opts?: InjectOptions): Promise<string>;
  };
  /** The model sources (plugin.json must declare "llm"). */
  llm: {
    listSources(): Promise<string[]>;
    currentSource(): Promise<string>;
    setSource(name: string): Promise<void>;
  };
}

/** Where an injected input goes and how it is answered. */
export interface InjectOptions {
  channel?: string;
  chatId?: string;
  userId?: string;
  groupId?: string;
  /** Cancel the session's model call in flight and run next. */
  interrupt?: boolean;
  /** Answer, but do not write the exchange to memory. */
  noMemory?: boolean;
}

export interface KV {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
}

/** What a call will act on, shown as the title of the approval prompt. */
export interface ToolAssessment {
  effect: ToolEffect;
  target?: { label: string; context?: string };
}

export interface ToolDef<I extends z.ZodType = z.ZodType, O = unknown> {
  title?: string;
  /** For the model; a function is asked again whenever Hearth builds a request. */
  description: Dynamic<string>;
  input?: I;
  effect?: ToolEffect;
  /**
   * The effect one call will really have, from its arguments; Hearth checks
   * it with `effect` and the stricter decision wins. Throwing, answering
   * anything but an effect, or taking longer than Hearth's hook deadline
   * (5 s) refuses the call.
   */
  resolveEffect?: (input: z.infer<I>, services: HostServices) => ToolEffect | ToolAssessment | Promise<ToolEffect | ToolAssessment>;
  /** Offer the tool only in sessions of these channels. */
  channels?: string[];
  untrusted?: boolean;
  userOnly?: boolean;
  onDemand?: boolean;
  grant?: boolean;
  alwaysAsk?: boolean;
  serial?: boolean;
  dayScoped?: boolean;
  /** HomeAgent's NoMemory: keep calls and results out of memory computation (the model still reads them). */
  noMemory?: boolean;
  timeoutMs?: number;
  execute: (input: z.infer<I>, ctx: ToolContext) => O | Promise<O>;
}

export type Stage = 'on_input' | 'pre_action' | 'post_action' | 'before_toolcall' | 'after_toolcall' | 'before_output' | 'after_output';

/** A tool call the model requested, as stage handlers see it. */
export interface ToolCall {
  id: string;
  /** The tool as the model sees it (`plugin__tool`). */
  name: string;
  plugin?: string;
  arguments: Record<string, unknown>;
  /** Set by a before_toolcall handler: refuses the call; the model reads the text. */
  deny?: string;
  /** Set by a before_toolcall handler: the call needs the user's approval; the text says why. */
  ask?: string;
}

/** The outcome of one tool call, as stage handlers see it. */
export interface ToolResult {
  /** The ToolCall id it answers. */
  call_id: string;
  name: string;
  plugin?: string;
  success: boolean;
  /** The handler's return value, or the error text. */
  result: unknown;
  /** The tool is noMemory: a handler computing memory leaves this result out. */
  noMemory?: boolean;
  /** The text memory computation uses: the result through the tool's cleaner, or the result text. */
  memoryText?: string;
}

/** One recalled memory item. */
export interface MemItem { role: string; content: string; score: number }

/**
 * The stage context on the wire (docs/protocol.md); a handler changes it
 * and returns it. Hearth enforces what each stage may change.
 */
export interface StageContext {
  /** The input text (on_input may rewrite it). */
  rawMessage: string;
  userId?: string;
  /** The group chat, absent in a private chat. */
  groupId?: string;
  /** The messages sent to the model (pre_action may add). */
  contextMsgs?: Record<string, unknown>[];
  /** The model's text (post_action may rewrite it). */
  llmText?: string;
  reasoningContent?: string;
  tokenUsage?: Record<string, number>;
  toolCalls?: ToolCall[];
  toolResults?: ToolResult[];
  /** The answer (before_output may rewrite it). */
  finalText?: string;
  /** Set to end the pipeline after this stage with this answer. */
  response?: string;
  /** The stage now running. */
  phase: Stage;
  memory?: MemItem[];
  /** This turn is not written to memory. */
  noMemory?: boolean;
  /** Free-form data shared between handlers. */
  extra?: Record<string, unknown>;
  /** Where the message came from; read-only. */
  channel?: string;
  chatId?: string;
  /** The plugin that injected the input; absent when a person sent it. Read-only. */
  injectedBy?: string;
}

export type Mode = 'auto' | 'ask' | 'off';
export type Capability = 'network' | 'campus-network' | 'campus-session' | 'notifications' | 'background'
  | 'shell' | 'filesystem' | 'cloud' | 'phone-control' | 'ongoing';

export type Verdict = 'allow' | 'ask' | 'deny';

/** A decision hook's answer; anything else refuses the call. */
export interface HookDecision {
  verdict: Verdict;
  reason?: string;
}

/** A tool call a decision hook is asked about. */
export interface HookCall {
  /** The tool as the model sees it (`plugin__tool`). */
  tool: string;
  args: Record<string, unknown>;
  context: Omit<ToolContext, 'kv' | 'services'>;
}

export interface PluginDef {
  id: string;
  name: string;
  description?: string;
  version: string;
  icon?: string;
  core?: boolean;
  /** What the device must provide; a plugin whose needs Hearth lacks is hidden. */
  requires?: Capability[];
  scopes?: string[];
  /** Each effect's mode unless the user changes it; missing effects are auto. */
  defaultModes?: Partial<Record<ToolEffect, Mode>>;
  /** Accepted and ignored, as in the PKU harness. */
  maxAgentSteps?: number;
  /** Kept as data; Hearth has no PKU harness Cloud (requires 'cloud' hides the plugin). */
  cloud?: CloudManifest;
  /** The plugin's settings, `<plugin id>.<name>` in Hearth's settings. */
  preferences?: Record<string, PluginPreferenceDef<any>>;
  /** Set by a host for remote (MCP) plugins; never set it yourself. */
  remote?: { url: string; server: string };
  /** Read tools for widgets and scheduled checks. */
  dataSources?: Record<string, DataSourceDef>;
  /** Model providers: loaded and listed; not run by this host yet. */
  providers?: Record<string, ProviderDef>;
  /** Speech recognition: loaded and listed; not run by this host yet. */
  speech?: Record<string, SpeechProviderDef>;
  /** OCR: loaded and listed; not run by this host yet. */
  ocr?: Record<string, OcrProviderDef>;
  /** Appended to the system prompt; a function is asked before each turn. */
  instructions?: Dynamic<string>;
  /** Called before each turn; the text is shown to the model as data. */
  context?: (input: ContextInput) => Promise<string | undefined> | string | undefined;
  contributes?: Contributions;
  /** English strings for people; the model reads the originals. */
  i18n?: { en?: PluginTranslation };
  legacy?: PluginLegacy;
  tools: Record<string, ToolDef<any, any>>;
  /** Stage handlers; services are Hearth's, acting in the turn's conversation. */
  stages?: Partial<Record<Stage, (ctx: StageContext, services: HostServices) => StageContext | void | Promise<StageContext | void>>>;
  /**
   * Stages whose handler may refuse the message (set `response`): when
   * Hearth cannot run it (the process died or did not answer in time), the
   * message is refused instead of passing (Go's RegisterGuardStage).
   */
  guardStages?: Stage[];
  /**
   * A decision hook, asked about every tool call (of every plugin) that the
   * policy did not refuse. Throwing, answering anything but a HookDecision,
   * or taking longer than 5 s refuses the call. Declare `"decisionHook": true`
   * in plugin.json so calls are refused, not run, while the plugin is down.
   */
  decide?: (call: HookCall) => HookDecision | Promise<HookDecision>;
}

export const PROTOCOL_VERSION: 1;
export const SDK_VERSION: string;
export function definePlugin(def: PluginDef): PluginDef;
export function defineTool<I extends z.ZodType, O>(def: ToolDef<I, O>): ToolDef<I, O>;
export class ToolError extends Error {}
export function inputSchema(input?: z.ZodType): Record<string, unknown>;
export function serve(plugin: PluginDef): Promise<void>;
/** Whether serve was called in this process. */
export function served(): boolean;

// ---- The rest of the PKU harness plugin model (seed 001). ----

/** A fixed value, or a function of the host's services asked when needed. */
export type Dynamic<T> = T | ((services: HostServices) => T);
export function resolveDynamic<T>(value: Dynamic<T>, services: HostServices): T;

/** What PluginDef.context receives before each turn. */
export interface ContextInput {
  /** The user's latest message. */
  query: string;
  kv: KV;
  services: HostServices;
}

/** The marks of context lines that take back a fact shown before. */
export const CONTEXT_MARK: { readonly deleted: '[已删除]'; readonly corrected: '[更正]'; readonly arrow: ' → ' };

/** A read tool of this plugin, with its arguments, for widgets and scheduled checks. */
export interface DataSourceDef {
  title: string;
  /** A tool name of this plugin. */
  tool: string;
  args?: Record<string, unknown>;
  ttlMs: number;
}

/** English versions of a manifest's strings for people; missing ones keep the original. */
export interface PluginTranslation {
  name?: string;
  description?: string;
  tools?: Record<string, { title?: string }>;
  widgets?: Record<string, { title?: string; description?: string }>;
  screens?: Record<string, { title?: string }>;
  settings?: Record<string, { title?: string; subtitle?: string }>;
  preferences?: Record<string, { title?: string; description?: string; options?: Record<string, string> }>;
  commands?: Record<string, { description?: string; argHint?: string; aliases?: string[]; prompt?: string }>;
  providers?: Record<string, { name?: string; description?: string; credentialHint?: string; models?: Record<string, { name?: string; description?: string }> }>;
  speech?: Record<string, { name?: string; description?: string; credentialHint?: string; models?: Record<string, { name?: string; description?: string }> }>;
  dataSources?: Record<string, { title?: string }>;
  scopes?: Record<string, string>;
}

export type SettingValue = string | number | boolean | string[];

/** What a preference's get and set can use. */
export interface SettingContext {
  kv: KV;
  services: HostServices;
}

/** A plugin's own setting; never a secret (the assistant reads and changes each one). */
export interface PluginPreferenceDef<T extends SettingValue = SettingValue> {
  title: string;
  description?: string;
  kind: 'choice' | 'boolean' | 'text' | 'list';
  options?: { value: string; label: string }[];
  /** Checks each new value before set runs. */
  input: z.ZodType<T>;
  get(ctx: SettingContext): Promise<T>;
  set(ctx: SettingContext, value: T): Promise<void>;
  screen?: string;
}
export function definePreference<T extends SettingValue>(def: PluginPreferenceDef<T>): PluginPreferenceDef<T>;

/** The old ids this plugin replaces. */
export interface PluginLegacy {
  pluginIds?: string[];
  /** Old full tool id → tool name here. */
  tools?: Record<string, string>;
  /** Old `<plugin>.<widget>` → a widget key here. */
  widgets?: Record<string, string>;
}

export type ProviderAuth = 'apiKey' | 'account' | 'none';

export interface ModelPricing {
  currency: 'CNY' | 'USD';
  inputCacheHit: number;
  inputCacheMiss: number;
  output: number;
  peak?: { multiplier: number; utcOffsetMinutes: number; weekdays: number[]; hours: [number, number][] };
  source?: string;
}

export interface ProviderModel {
  id: string;
  name?: string;
  description?: string;
  contextWindow?: number;
  inputModalities?: ('text' | 'image')[];
  pricing?: ModelPricing;
}

export interface ProviderConfig {
  baseURL: string;
  model: string;
  credential?: string;
  fetch: typeof fetch;
}

export interface ProviderBalance { currency: string; total: number; granted?: number; toppedUp?: number }
export interface ProviderAccount { available: boolean; balances: ProviderBalance[] }

/** A model provider; Hearth loads and lists it but does not call it yet. */
export interface ProviderDef {
  name: string;
  description: string;
  auth: ProviderAuth;
  defaultBaseURL: string;
  editableBaseURL?: boolean;
  models: ProviderModel[];
  defaultModel: string;
  efforts?: readonly ('minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max')[];
  credentialHint?: string;
  listModels?: (config: ProviderConfig) => Promise<ProviderModel[]>;
  signIn?: () => Promise<string>;
  balance?: (config: ProviderConfig) => Promise<ProviderAccount>;
  createModel: (config: ProviderConfig) => unknown;
}

export interface SpeechConfig {
  baseURL: string;
  model: string;
  credential?: string;
  fetch: typeof fetch;
  webSocket: (url: string, headers: Record<string, string>) => WebSocket;
}

/** A recording (16 kHz mono WAV unless mimeType says otherwise). */
export interface SpeechAudio {
  file: Blob;
  uri: string;
  name: string;
  mimeType: string;
  durationMs?: number;
}

export interface SpeechStreamHandlers {
  onText: (text: string) => void;
}

export interface SpeechStream {
  send: (pcmBase64: string) => void;
  finish: () => Promise<string>;
  cancel: () => void;
}

/** A speech recognition service; Hearth loads and lists it but does not call it yet. */
export interface SpeechProviderDef {
  name: string;
  description: string;
  defaultBaseURL: string;
  editableBaseURL?: boolean;
  models: { id: string; name: string; description?: string }[];
  defaultModel: string;
  credentialHint?: string;
  keyURL?: string;
  credentialFrom?: string;
  transcribe?: (config: SpeechConfig, audio: SpeechAudio, signal?: AbortSignal) => Promise<string>;
  stream?: (config: SpeechConfig, handlers: SpeechStreamHandlers) => Promise<SpeechStream>;
}

export interface OcrDocument {
  file: Blob;
  uri: string;
  name: string;
  mimeType: string;
}

/** An OCR service; Hearth loads and lists it but does not call it yet. */
export interface OcrProviderDef {
  name: string;
  credentialFrom: string;
  recognize: (config: { baseURL: string; credential: string; fetch: typeof fetch }, doc: OcrDocument, signal?: AbortSignal) => Promise<string>;
}

/** POST {baseURL}/audio/transcriptions (multipart file and model); the cleaned text. */
export function openAITranscribe(config: SpeechConfig, audio: SpeechAudio, signal?: AbortSignal): Promise<string>;
/** Removes control tokens such as <|zh|> and extra white space. */
export function cleanTranscript(text: string): string;
/** An error response as "<status>: <message>". */
export function speechErrorMessage(status: number, body: unknown): string;
/** The error text of what this host loads but does not run yet. */
export const NOT_SUPPORTED: 'not supported by this host yet';

/**
 * The call token of the Hearth request being served (a tool call, a stage
 * handler, a decision hook, the plugin's context), or undefined outside
 * one. The SDK sends it with each memory and knowledge request so that
 * Hearth acts in that turn's conversation; plugins need not use it. Work
 * the request leaves behind (a timer, a promise still pending when it
 * answers) keeps the token: its writes then fail with CallEnded.
 */
export function currentCallToken(): string | undefined;

/** The JSON-RPC error code of CallEnded (-32007). */
export const CALL_ENDED: -32007;

/**
 * The error of a memory or knowledge write made for a Hearth request that
 * has been answered (or with a token that is not this plugin's): refused,
 * rather than written in the global scope where every conversation would
 * read it. Work outside any request (start, the plugin's own timers)
 * sends no token and writes in the global scope.
 */
export class CallEnded extends Error {
  readonly code: -32007;
}
