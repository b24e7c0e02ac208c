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
}

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
  description: string | (() => string);
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
  /** Appended to the system prompt; a function is asked before each turn. */
  instructions?: string | ((services: HostServices) => string);
  /** Called before each turn; the text is shown to the model as data. */
  context?: (input: { query: string }) => Promise<string | undefined> | string | undefined;
  contributes?: Record<string, unknown>;
  i18n?: { en?: Record<string, unknown> };
  legacy?: { pluginIds?: string[]; tools?: Record<string, string> };
  tools: Record<string, ToolDef<any, any>>;
  stages?: Partial<Record<Stage, (ctx: StageContext) => StageContext | void | Promise<StageContext | void>>>;
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
