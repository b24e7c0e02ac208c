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

PROTOCOL_VERSION = 1
SDK_VERSION = "0.1.0"

EFFECTS = ("read", "write", "money", "public")


class ToolError(Exception):
    """Raise to fail a tool call with a message the model reads."""


MODES = ("auto", "ask", "off")
VERDICTS = ("allow", "ask", "deny")


def define_tool(description, execute, input=None, title="", effect="write", untrusted=False,
                user_only=False, on_demand=False, grant=False, always_ask=False, serial=False,
                day_scoped=False, timeout_ms=0, resolve_effect=None, channels=None, no_memory=False):
    """Describe a tool. `input` is a JSON Schema for the arguments (Hearth
    validates calls against it before execute runs); execute(args, ctx)
    returns any JSON value (a str is passed to the model as is).

    resolve_effect(args, services), when given, returns the effect one call
    will really have: an effect name, or {"effect": ..., "target": {"label":
    ...}}. Hearth checks it with `effect` and the stricter decision wins;
    raising, returning anything else or taking over 5 s refuses the call.
    channels limits the tool to sessions of those channels. no_memory
    (HomeAgent's NoMemory) keeps calls and results out of memory
    computation; the model still reads them."""
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
        "noMemory": no_memory, "resolveEffect": resolve_effect,
    }


def define_plugin(id, name, version, tools, description="", stages=None, default_modes=None,
                  instructions="", scopes=None, requires=None, context=None, decide=None):
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
    while the plugin is down."""
    for effect, mode in (default_modes or {}).items():
        if effect not in EFFECTS or mode not in MODES:
            raise ValueError("default_modes: %r: %r is not an effect and a mode" % (effect, mode))
    return {
        "id": id, "name": name, "version": version, "description": description,
        "tools": tools, "stages": stages or {}, "defaultModes": default_modes or {},
        "instructions": instructions, "scopes": scopes or [], "requires": list(requires or []),
        "context": context, "decide": decide,
    }


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
    group used: "settings", "memory", "knowledge" (docs/protocol.md)."""

    def __init__(self, conn):
        self._conn = conn

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

    # memory
    def recall(self, query, depth=1):
        return self._conn.call("memory.recall", {"query": list(query), "depth": depth})

    def commit(self, triples):
        self._conn.call("memory.commit", {"triples": triples})

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
        self.stage_ids = {}

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
            for i, (stage, _) in enumerate(p["stages"].items(), start=1):
                self.stage_ids[i] = stage
                self.call("stages.register", {"id": i, "stage": stage})
            if callable(p.get("decide")):
                self.call("hooks.register", {"id": 0})
            return {"protocolVersion": PROTOCOL_VERSION, "sdkVersion": "python-" + SDK_VERSION,
                    "name": p["id"], "autoRestart": True, "manifest": wire_manifest(p, Services(self))}
        if method == "tool.resolveEffect":
            tool = p["tools"].get(params.get("tool"))
            if tool is None or not callable(tool.get("resolveEffect")):
                raise RPCError(-32005, "no resolve_effect for tool %s" % params.get("tool"))
            return wire_assessment(tool["resolveEffect"](params.get("args") or {}, Services(self)))
        if method == "hook.decide":
            if not callable(p.get("decide")):
                raise RPCError(-32005, "unknown decision hook")
            call = {"tool": params.get("tool"), "args": params.get("args") or {},
                    "context": Context(params.get("context"), cancelled)}
            return _wire_decision(p["decide"](call))
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
            stage = self.stage_ids.get(params.get("id"))
            if stage is None:
                raise RPCError(-32005, "unknown stage handler")
            ctx = params.get("context") or {}
            out = p["stages"][stage](ctx)
            return {"context": out if out is not None else ctx}
        if method == "$/ping":
            return "pong"
        if method == "shutdown":
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
