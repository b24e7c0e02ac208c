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
  tool?: string;
  callId?: string;
  actor: Actor;
  turn?: TurnInfo;
  channel?: string;
  chatId?: string;
  userId?: string;
  groupId?: string;
  /** The user's answer to a `grant` tool's prompt. */
  grant?: 'once' | 'always';
  /** This plugin's private storage, kept by Hearth across restarts (plugin.json must declare "kv"). */
  kv: KV;
  /** Aborted when Hearth cancels the call (deadline, interrupt). */
  signal: AbortSignal;
}

export interface KV {
  get<T>(key: string): Promise<T | undefined>;
  set<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
}

export interface ToolDef<I extends z.ZodType = z.ZodType, O = unknown> {
  title?: string;
  description: string | (() => string);
  input?: I;
  effect?: ToolEffect;
  untrusted?: boolean;
  userOnly?: boolean;
  onDemand?: boolean;
  grant?: boolean;
  alwaysAsk?: boolean;
  serial?: boolean;
  dayScoped?: boolean;
  timeoutMs?: number;
  execute: (input: z.infer<I>, ctx: ToolContext) => O | Promise<O>;
}

export type Stage = 'on_input' | 'pre_action' | 'post_action' | 'before_toolcall' | 'after_toolcall' | 'before_output' | 'after_output';

/** The stage context on the wire (docs/protocol.md). */
export type StageContext = Record<string, unknown>;

export interface PluginDef {
  id: string;
  name: string;
  description?: string;
  version: string;
  tools: Record<string, ToolDef<any, any>>;
  stages?: Partial<Record<Stage, (ctx: StageContext) => StageContext | void | Promise<StageContext | void>>>;
}

export const PROTOCOL_VERSION: 1;
export const SDK_VERSION: string;
export function definePlugin(def: PluginDef): PluginDef;
export function defineTool<I extends z.ZodType, O>(def: ToolDef<I, O>): ToolDef<I, O>;
export class ToolError extends Error {}
export function inputSchema(input?: z.ZodType): Record<string, unknown>;
export function serve(plugin: PluginDef): Promise<void>;
