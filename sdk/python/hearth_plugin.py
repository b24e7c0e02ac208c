"""Hearth plugin SDK for Python (standard library only).

A plugin is a folder with a plugin.json ("command": ["python3", "main.py"])
whose program defines its tools and calls serve():

    from hearth_plugin import define_plugin, define_tool, serve

    def query(args, ctx):
        return {"city": args["city"], "weather": "晴"}

    serve(define_plugin(
        id="pyweather", name="天气", version="1.0.0",
        tools={"query": define_tool(
            title="查询天气", description="Weather of a city.", effect="read",
            input={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            execute=query)},
    ))

It speaks the Hearth plugin protocol (docs/protocol.md): newline-delimited
JSON-RPC 2.0 on stdin/stdout, each request handled in its own thread, with
cancellation ($/cancel) visible as ctx.cancelled. Logs go to stderr.
"""

import json
import sys
import threading
import traceback
from dataclasses import dataclass
from typing import Callable, Optional

PROTOCOL_VERSION = 1
SDK_VERSION = "0.1.0"

EFFECTS = ("read", "write", "money", "public")


class ToolError(Exception):
    """Raise to fail a tool call with a message the model reads."""


MODES = ("auto", "ask", "off")
VERDICTS = ("allow", "ask", "deny")


def define_tool(description, execute, input=None, title="", effect="write", untrusted=False,
                user_only=False, on_demand=False, grant=False, always_ask=False, serial=False,
                day_scoped=False, timeout_ms=0, resolve_effect=None, channels=None):
    """Describe a tool. `input` is a JSON Schema for the arguments (Hearth
    validates calls against it before execute runs); execute(args, ctx)
    returns any JSON value (a str is passed to the model as is).

    resolve_effect(args, services), when given, returns the effect one call
    will really have: an effect name, or {"effect": ..., "target": {"label":
    ...}}. Hearth checks it with `effect` and the stricter decision wins;
    raising, returning anything else or taking over 5 s refuses the call.
    channels limits the tool to sessions of those channels."""
    if effect not in EFFECTS:
        raise ValueError("effect must be one of %s" % (EFFECTS,))
    if resolve_effect is not None and not callable(resolve_effect):
        raise ValueError("resolve_effect must be callable")
    return {
        "description": description, "execute": execute,
        "input": input or {"type": "object", "properties": {}},
        "title": title, "effect": effect, "untrusted": untrusted, "userOnly": user_only,
        "onDemand": on_demand, "grant": grant, "alwaysAsk": always_ask, "serial": serial,
        "dayScoped": day_scoped, "timeoutMs": timeout_ms, "channels": list(channels or []),
        "resolveEffect": resolve_effect,
    }


def define_plugin(id, name, version, tools, description="", stages=None, default_modes=None,
                  instructions="", scopes=None, requires=None, context=None, decide=None,
                  start=None, stop=None):
    """Describe a plugin. stages maps a stage name (on_input, pre_action,
    ...) to handler(ctx) -> ctx, where ctx is the stage context as a dict
    (its "injectedBy" names the plugin that injected the input, absent when
    a person sent it; read-only).

    The manifest fields are applied by Hearth as for a compiled-in plugin:
    default_modes ({"money": "ask", ...}), requires (a plugin whose needs
    Hearth lacks is hidden), instructions (a str, or a function of the
    services asked before each turn) and context(query) -> str, shown to
    the model as data before each turn.

    decide(call) is a decision hook: it is asked about every tool call the
    policy did not refuse (call has "tool", "args" and "context") and must
    return {"verdict": "allow" | "ask" | "deny", "reason": ...}; anything
    else, raising or taking over 5 s refuses the call. Declare
    "decisionHook": true in plugin.json so calls are refused, not run,
    while the plugin is down. A list of functions registers one hook each.

    A stage's value may also be a list of handlers, each registered in
    turn, and a handler may be wrapped by define_stage (own_tools=True: a
    before_toolcall handler that sees only this plugin's calls).

    start(services), when given, runs in its own thread once the handshake
    is done: the place for a loop that injects input (services.inject) or
    watches something; stop() runs when Hearth shuts the plugin down."""
    for effect, mode in (default_modes or {}).items():
        if effect not in EFFECTS or mode not in MODES:
            raise ValueError("default_modes: %r: %r is not an effect and a mode" % (effect, mode))
    for stage, handlers in (stages or {}).items():
        if stage not in STAGES:
            raise ValueError("stages: %r is not one of %s" % (stage, STAGES))
        for h in _stage_handlers(handlers):
            if not callable(h.handler):
                raise ValueError("stages: the handler of %r is not callable" % stage)
    for hook in _hooks(decide):
        if not callable(hook):
            raise ValueError("decide must be a function or a list of functions")
    for fn, what in ((start, "start"), (stop, "stop")):
        if fn is not None and not callable(fn):
            raise ValueError("%s must be callable" % what)
    return {
        "id": id, "name": name, "version": version, "description": description,
        "tools": tools, "stages": stages or {}, "defaultModes": default_modes or {},
        "instructions": instructions, "scopes": scopes or [], "requires": list(requires or []),
        "context": context, "decide": decide, "start": start, "stop": stop,
    }


STAGES = ("on_input", "pre_action", "post_action", "before_toolcall", "after_toolcall",
          "before_output", "after_output")


@dataclass(frozen=True)
class StageHandler:
    """A stage handler with its scope (see define_stage)."""
    handler: Callable[[dict], Optional[dict]]
    own_tools: bool = False


def define_stage(handler, own_tools=False):
    """Wrap a stage handler with its scope: own_tools=True on a
    before_toolcall handler limits it to this plugin's own tool calls (Go's
    StageScopeOwnTools), so it is not a guard over other plugins."""
    if not callable(handler):
        raise ValueError("define_stage: handler must be callable")
    return StageHandler(handler, bool(own_tools))


def _stage_handlers(value):
    """The handlers a stages entry names, each as a StageHandler."""
    items = value if isinstance(value, (list, tuple)) else [value]
    return [v if isinstance(v, StageHandler) else StageHandler(v) for v in items]


def _hooks(decide):
    if decide is None:
        return []
    return list(decide) if isinstance(decide, (list, tuple)) else [decide]


def wire_manifest(plugin, services=None):
    """The manifest sent at initialize."""
    instructions = plugin.get("instructions") or ""
    dynamic = callable(instructions)
    return {
        "id": plugin["id"], "name": plugin["name"], "version": plugin["version"],
        "description": plugin.get("description", ""), "scopes": plugin.get("scopes", []),
        "requires": plugin.get("requires", []), "defaultModes": plugin.get("defaultModes", {}),
        "instructions": str(instructions(services) or "") if dynamic else instructions,
        "dynamicInstructions": dynamic, "hasContext": callable(plugin.get("context")),
    }


def wire_assessment(r):
    """A resolve_effect answer for the wire; anything else raises."""
    a = {"effect": r} if isinstance(r, str) else r
    if not isinstance(a, dict) or a.get("effect") not in EFFECTS:
        raise ValueError("resolve_effect returned %r; want one of %s or {\"effect\": ..., \"target\": ...}" % (r, EFFECTS))
    out = {"effect": a["effect"]}
    if a.get("target"):
        out["target"] = a["target"]
    return out


def _wire_decision(d):
    if not isinstance(d, dict) or d.get("verdict") not in VERDICTS:
        raise ValueError("decide returned %r; want {\"verdict\": \"allow\" | \"ask\" | \"deny\"}" % (d,))
    return {"verdict": d["verdict"], "reason": d.get("reason", "")}


class Context(dict):
    """The ToolContext of a call (pluginId, tool, actor, turn, channel,
    chatId, userId, groupId, effect, grant, injectedBy: the plugin that
    injected the turn's input, absent when a person on a channel asked),
    plus `cancelled`, an Event set
    when Hearth cancels the call, `kv`, the plugin's private storage,
    `services`, Hearth's settings, memory and knowledge base, and
    `progress(done, total=0, message="")`, which reports how far a long
    call has got (None when nobody watches the call)."""

    def __init__(self, data, cancelled, kv=None, services=None):
        super().__init__(data or {})
        self.cancelled = cancelled
        self.progress = None
        self.kv = kv
        self.services = services

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key)


class KV:
    """The plugin's private storage, kept by Hearth across restarts
    (plugin.json must declare "kv"). Values are anything json can encode."""

    def __init__(self, conn):
        self._conn = conn

    def get(self, key, default=None):
        r = self._conn.call("kv.get", {"key": key}) or {}
        return r.get("value") if r.get("found") else default

    def set(self, key, value):
        self._conn.call("kv.set", {"key": key, "value": value})

    def delete(self, key):
        self._conn.call("kv.delete", {"key": key})


class Services:
    """Hearth's services over the protocol; plugin.json must declare each
    group used in its "capabilities": "settings" (this plugin's own),
    "settings.core" (Hearth's), "settings.plugins" (other plugins'),
    "memory", "knowledge", "llm" and "kv" (docs/protocol.md). Input
    injection is always allowed. `kv` is the plugin's private storage."""

    def __init__(self, conn):
        self._conn = conn
        self.kv = KV(conn)

    # input: a turn answered with this plugin's rights, never the owner's
    def inject(self, text, channel="", chat_id="", user_id="", group_id="", interrupt=False,
               no_memory=False):
        """Queue text as input for the session of channel (and chat_id);
        user_id and group_id name the person relaying it, whose role caps
        the turn. Returns at once; the answer goes to that channel."""
        self._conn.call("input.inject", _injection(text, channel, chat_id, user_id, group_id, interrupt, no_memory))

    def inject_sync(self, text, channel="", chat_id="", user_id="", group_id="", interrupt=False,
                    no_memory=False, timeout=600):
        """Like inject, but waits (up to timeout seconds) for the answer
        and returns its text."""
        r = self._conn.call("input.injectSync", _injection(text, channel, chat_id, user_id, group_id, interrupt, no_memory),
                            timeout=timeout) or {}
        return r.get("text", "")

    # llm: the model sources
    def list_sources(self):
        """The names of the configured model sources."""
        return self._conn.call("llm.listSources", {}) or []

    def set_source(self, name):
        """Make name the model source in use."""
        self._conn.call("llm.setSource", {"name": name})

    def current_source(self):
        """The name of the model source in use."""
        return self._conn.call("llm.currentSource", {}) or ""

    def _value(self, method, params, default):
        r = self._conn.call(method, params) or {}
        return r.get("value") if r.get("found") else default

    # settings: this plugin's own
    def get_setting(self, key, default=None):
        return self._value("settings.get", {"key": key}, default)

    def set_setting(self, key, value):
        self._conn.call("settings.set", {"key": key, "value": value})

    def list_settings(self, prefix=""):
        return self._conn.call("settings.list", {"prefix": prefix}) or []

    def register_setting(self, key, type="string", display_name="", default=None, description="",
                         category="", options=None, min=0, max=0, step=0, required=False, secret=False):
        """Declare one of this plugin's settings (its type is checked on
        every set; a secret is masked wherever it is shown)."""
        d = {"key": key, "type": type, "display_name": display_name or key}
        for k, v in (("default", default), ("description", description), ("category", category),
                     ("options", list(options or [])), ("min", min), ("max", max), ("step", step),
                     ("required", required), ("secret", secret)):
            if v not in (None, "", [], 0, False):
                d[k] = v
        self._conn.call("settings.registerDef", d)

    def setting_defs(self, prefix=""):
        """This plugin's declared settings."""
        return self._conn.call("settings.defs", {"prefix": prefix}) or []

    # settings.core: Hearth's own
    def get_core(self, key, default=None):
        return self._value("settings.getCore", {"key": key}, default)

    def set_core(self, key, value):
        self._conn.call("settings.setCore", {"key": key, "value": value})

    def list_core(self, prefix=""):
        return self._conn.call("settings.listCore", {"prefix": prefix}) or []

    # settings.plugins: other plugins' (their secrets come back masked)
    def get_plugin_setting(self, plugin, key, default=None):
        return self._value("settings.getPlugin", {"plugin": plugin, "key": key}, default)

    def set_plugin_setting(self, plugin, key, value):
        """Needs "settings.plugins.write"; never sets another's secret."""
        self._conn.call("settings.setPlugin", {"plugin": plugin, "key": key, "value": value})

    def list_plugin_settings(self, plugin, prefix=""):
        return self._conn.call("settings.listPlugin", {"plugin": plugin, "prefix": prefix}) or []

    def dump_settings(self):
        return self._conn.call("settings.dump", {}) or {}

    def setting_plugins(self):
        return self._conn.call("settings.plugins", {}) or []

    # memory
    def recall(self, query, depth=1):
        return self._conn.call("memory.recall", {"query": list(query), "depth": depth})

    def commit(self, triples):
        self._conn.call("memory.commit", {"triples": triples})

    def introspect(self):
        return self._conn.call("memory.introspect", {}) or {}

    def merge_entities(self, source, target):
        return (self._conn.call("memory.merge", {"source": source, "target": target}) or {}).get("count", 0)

    def purge(self, criteria, mode="soft"):
        return (self._conn.call("memory.purge", {"criteria": criteria, "mode": mode}) or {}).get("count", 0)

    def doc_stats(self):
        return self._conn.call("memory.docStats", {}) or {}

    def append_text(self, role, content, channel="", timestamp=0):
        self._conn.call("memory.appendText", {"role": role, "content": content, "channel": channel, "timestamp": timestamp})

    def query_docs(self, query, top_k=5):
        return self._conn.call("memory.docQuery", {"query": query, "topK": top_k}) or []

    def insert_doc(self, title, content, id=""):
        return (self._conn.call("memory.docInsert", {"id": id, "title": title, "content": content}) or {}).get("id")

    def remove_doc(self, id):
        self._conn.call("memory.docRemove", {"id": id})

    # knowledge
    def search_knowledge(self, query, top_k=5):
        return self._conn.call("knowledge.search", {"query": query, "topK": top_k}) or []

    def add_knowledge(self, name, content):
        self._conn.call("knowledge.add", {"name": name, "content": content})

    def list_knowledge(self):
        return self._conn.call("knowledge.list", {}) or []


def _injection(text, channel, chat_id, user_id, group_id, interrupt, no_memory):
    d = {"channel": channel, "text": text}
    for k, v in (("chatId", chat_id), ("userId", user_id), ("groupId", group_id),
                 ("interrupt", interrupt), ("noMemory", no_memory)):
        if v:
            d[k] = v
    return d


class RPCError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def log(msg, **fields):
    """Write a structured log line to stderr; Hearth re-emits it."""
    rec = {"level": fields.pop("level", "INFO"), "msg": msg}
    rec.update(fields)
    sys.stderr.write(json.dumps(rec, ensure_ascii=False) + "\n")
    sys.stderr.flush()


class _Connection:
    def __init__(self, plugin, rin, wout):
        self.plugin = plugin
        self.rin = rin
        self.wout = wout
        self.wlock = threading.Lock()
        self.lock = threading.Lock()
        self.next_id = 0
        self.pending = {}
        self.running = {}
        self.stage_ids = {}  # id -> (stage, handler)
        self.hooks = {}  # id -> decide function
        self.started = False  # start is due once initialize is answered

    def send(self, msg):
        line = json.dumps(msg, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self.wlock:
            self.wout.write(line)
            self.wout.flush()

    def call(self, method, params, timeout=30):
        with self.lock:
            self.next_id += 1
            mid = "py-%d" % self.next_id
            done = threading.Event()
            slot = {"done": done}
            self.pending[mid] = slot
        self.send({"jsonrpc": "2.0", "id": mid, "method": method, "params": params})
        if not done.wait(timeout):
            raise RPCError(-32800, "%s: no answer" % method)
        if "error" in slot:
            raise RPCError(slot["error"].get("code", -32603), slot["error"].get("message", ""))
        return slot.get("result")

    # Requests from Hearth.

    def handle(self, msg):
        mid = msg.get("id")
        cancelled = threading.Event()
        if mid is not None:
            with self.lock:
                self.running[json.dumps(mid)] = cancelled
        try:
            result = self.dispatch(msg.get("method"), msg.get("params") or {}, cancelled)
            reply = {"jsonrpc": "2.0", "id": mid, "result": result}
        except RPCError as e:
            reply = {"jsonrpc": "2.0", "id": mid, "error": {"code": e.code, "message": e.message}}
        except ToolError as e:
            reply = {"jsonrpc": "2.0", "id": mid, "error": {"code": -32003, "message": str(e)}}
        except Exception as e:  # a bug in the plugin: report it, keep serving
            log("request failed", level="ERROR", method=msg.get("method"), error=traceback.format_exc())
            code = -32003 if msg.get("method") == "tool.call" else -32603
            reply = {"jsonrpc": "2.0", "id": mid, "error": {"code": code, "message": str(e) or type(e).__name__}}
        finally:
            if mid is not None:
                with self.lock:
                    self.running.pop(json.dumps(mid), None)
        if mid is not None:
            if cancelled.is_set():
                reply = {"jsonrpc": "2.0", "id": mid, "error": {"code": -32800, "message": "request cancelled"}}
            self.send(reply)
        if msg.get("method") == "initialize" and "result" in reply and self.started:
            self.started = False
            threading.Thread(target=self._start, daemon=True).start()

    def _start(self):
        try:
            self.plugin["start"](Services(self))
        except Exception:
            log("start failed", level="ERROR", error=traceback.format_exc())

    def dispatch(self, method, params, cancelled):
        p = self.plugin
        if method == "initialize":
            if PROTOCOL_VERSION not in params.get("protocolVersions", []):
                raise RPCError(-32001, "the plugin speaks protocol version %d; the host offered %s"
                               % (PROTOCOL_VERSION, params.get("protocolVersions")))
            for name, tool in p["tools"].items():
                wire = {k: v for k, v in tool.items() if k not in ("execute", "input", "resolveEffect")}
                wire["name"] = name
                wire["parameters"] = tool["input"]
                wire["hasResolveEffect"] = callable(tool.get("resolveEffect"))
                self.call("tools.register", wire)
            i = 0
            for stage, handlers in p["stages"].items():
                for h in _stage_handlers(handlers):
                    i += 1
                    self.stage_ids[i] = (stage, h.handler)
                    reg = {"id": i, "stage": stage}
                    if h.own_tools:
                        reg["ownTools"] = True
                    self.call("stages.register", reg)
            for i, hook in enumerate(_hooks(p.get("decide"))):
                self.hooks[i] = hook
                self.call("hooks.register", {"id": i})
            if callable(p.get("start")):
                self.started = True
            return {"protocolVersion": PROTOCOL_VERSION, "sdkVersion": "python-" + SDK_VERSION,
                    "name": p["id"], "autoRestart": True, "manifest": wire_manifest(p, Services(self))}
        if method == "tool.resolveEffect":
            tool = p["tools"].get(params.get("tool"))
            if tool is None or not callable(tool.get("resolveEffect")):
                raise RPCError(-32005, "no resolve_effect for tool %s" % params.get("tool"))
            return wire_assessment(tool["resolveEffect"](params.get("args") or {}, Services(self)))
        if method == "hook.decide":
            hook = self.hooks.get(params.get("id", 0))
            if hook is None:
                raise RPCError(-32005, "unknown decision hook %s" % params.get("id"))
            call = {"tool": params.get("tool"), "args": params.get("args") or {},
                    "context": Context(params.get("context"), cancelled)}
            return _wire_decision(hook(call))
        if method == "plugin.context":
            if not callable(p.get("context")):
                raise RPCError(-32005, "the plugin has no context function")
            return {"text": str(p["context"](params.get("query", "")) or "")}
        if method == "plugin.instructions":
            instructions = p.get("instructions") or ""
            if callable(instructions):
                instructions = instructions(Services(self))
            return {"text": str(instructions or "")}
        if method == "tool.call":
            tool = p["tools"].get(params.get("tool"))
            if tool is None:
                raise RPCError(-32005, "unknown tool %s" % params.get("tool"))
            ctx = Context(params.get("context"), cancelled, KV(self), Services(self))
            token = params.get("progressToken")
            if token:
                def progress(done, total=0, message="", token=token):
                    self.send({"jsonrpc": "2.0", "method": "tool.progress",
                               "params": {"token": token, "done": float(done), "total": float(total), "message": str(message)}})
                ctx.progress = progress
            value = tool["execute"](params.get("args") or {}, ctx)
            if isinstance(value, str):
                return {"text": value}
            is_error = isinstance(value, dict) and value.get("isError") is True
            return {"value": value, "isError": is_error}
        if method == "stage.run":
            entry = self.stage_ids.get(params.get("id"))
            if entry is None:
                raise RPCError(-32005, "unknown stage handler %s" % params.get("id"))
            ctx = params.get("context") or {}
            try:
                out = entry[1](ctx)
            except Exception as e:  # the handler's error, as a Go handler returns one
                log("stage handler failed", level="ERROR", stage=entry[0], error=traceback.format_exc())
                return {"context": ctx, "error": str(e) or type(e).__name__}
            return {"context": out if out is not None else ctx}
        if method == "$/ping":
            return "pong"
        if method == "shutdown":
            if callable(p.get("stop")):
                p["stop"]()
            return {}
        raise RPCError(-32601, "method not found: %s" % method)

    def run(self):
        for line in self.rin:
            line = line.strip()
            if not line:
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                log("ignoring a line that is not JSON", level="WARN")
                continue
            method = msg.get("method")
            if method == "$/cancel":
                key = json.dumps((msg.get("params") or {}).get("id"))
                with self.lock:
                    ev = self.running.get(key)
                if ev is not None:
                    ev.set()
            elif method:
                threading.Thread(target=self.handle, args=(msg,), daemon=True).start()
            elif msg.get("id") is not None:
                with self.lock:
                    slot = self.pending.pop(msg["id"], None)
                if slot is not None:
                    if "error" in msg:
                        slot["error"] = msg["error"]
                    else:
                        slot["result"] = msg.get("result")
                    slot["done"].set()


def serve(plugin):
    """Serve the plugin on stdin/stdout until Hearth closes stdin."""
    out = sys.stdout
    sys.stdout = sys.stderr  # stray prints must not corrupt the protocol
    _Connection(plugin, sys.stdin, out).run()
