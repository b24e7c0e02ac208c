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
cancellation ($/cancel) visible as ctx.cancelled. Logs go to stderr. Every
function a plugin hands the SDK (execute, resolve_effect, decide, stage
handlers, context, instructions, descriptions, preferences' get and set,
start, stop) may also be an async def; it then runs to completion in the
request's thread. Services' methods block; call them as they are.
"""

import asyncio
import base64
import contextvars
import inspect
import json
import re
import sys
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, TypedDict

# The PKU harness plugin model (seed 001) lives in hearth_pku, beside this
# module; every name of it is a name of this one.
from hearth_pku import *  # noqa: F401,F403
from hearth_pku import (CAPABILITIES, NOT_SUPPORTED, ContextInput, DataSourceDef, Dynamic, OcrProviderDef,
                        PluginLegacy, PluginPreferenceDef, PluginTranslation, ProviderConfig, ProviderDef, SettingContext,
                        OcrDocument, SpeechAudio, SpeechConfig, SpeechProviderDef, resolve_dynamic)

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
    computation; the model still reads them.

    description may be Dynamic: a function of the services, asked again
    when Hearth builds a model request (its answer at start is the
    fallback)."""
    if not (isinstance(description, str) or callable(description)):
        raise ValueError("description must be a str or a function of the services")
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
                  instructions="", scopes=None, requires=None, context=None, decide=None,
                  start=None, stop=None, icon="", core=False, max_agent_steps=0, cloud=None,
                  preferences=None, data_sources=None, providers=None, speech=None, ocr=None,
                  contributes=None, i18n=None, legacy=None):
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
    watches something; stop() runs when Hearth shuts the plugin down.

    The rest is the PKU harness model (docs/pku-wire.md): preferences
    ({name: define_preference(...)}, Hearth settings <id>.<name>),
    data_sources ({key: DataSourceDef}), providers, speech and ocr
    ({key: ProviderDef / SpeechProviderDef / OcrProviderDef}: loaded and
    listed, not run by this host yet), i18n ({"en": PluginTranslation}),
    legacy (PluginLegacy), icon, core, cloud, contributes, and
    max_agent_steps (accepted and ignored). context may take a
    ContextInput (a str with .query, .kv, .services)."""
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
    for cap in requires or []:
        if cap not in CAPABILITIES:
            raise ValueError("requires: %r is not one of %s" % (cap, CAPABILITIES))
    _check_pku(id, tools, preferences, data_sources, providers, speech, ocr)
    return {
        "id": id, "name": name, "version": version, "description": description,
        "tools": tools, "stages": stages or {}, "defaultModes": default_modes or {},
        "instructions": instructions, "scopes": scopes or [], "requires": list(requires or []),
        "context": context, "decide": decide, "start": start, "stop": stop,
        "icon": icon, "core": bool(core), "maxAgentSteps": max_agent_steps, "cloud": cloud,
        "preferences": dict(preferences or {}), "dataSources": dict(data_sources or {}),
        "providers": dict(providers or {}), "speech": dict(speech or {}), "ocr": dict(ocr or {}),
        "contributes": contributes, "i18n": i18n, "legacy": legacy,
    }


_SECRET_NAME = re.compile(r"token|password|passwd|secret|api[_-]?key|credential", re.I)


def _check_pku(id, tools, preferences, data_sources, providers, speech, ocr):
    """Checks what define_plugin can check of the PKU parts."""
    for key, ds in (data_sources or {}).items():
        if ds.get("tool") not in tools:
            raise ValueError("data source %s: tool %r is not a tool of plugin %s" % (key, ds.get("tool"), id))
        if not isinstance(ds.get("ttlMs"), (int, float)) or ds.get("ttlMs") <= 0:
            raise ValueError("data source %s: ttlMs must be a positive number" % key)
    for name, pref in (preferences or {}).items():
        if _SECRET_NAME.search(name):
            raise ValueError("preference %s: preferences are not secret (the assistant reads and changes every one); "
                             "keep keys and passwords out of them" % name)
        if not isinstance(pref, PluginPreferenceDef):
            raise ValueError("preference %s: write it with define_preference" % name)
    for group, cls in ((providers, ProviderDef), (speech, SpeechProviderDef), (ocr, OcrProviderDef)):
        for key, d in (group or {}).items():
            if not isinstance(d, cls):
                raise ValueError("%s: write it as a %s" % (key, cls.__name__))


STAGES = ("on_input", "pre_action", "post_action", "before_toolcall", "after_toolcall",
          "before_output", "after_output")


@dataclass(frozen=True)
class StageHandler:
    """A stage handler with its scope (see define_stage)."""
    handler: Callable[[dict], Optional[dict]]
    own_tools: bool = False
    guard: bool = False


def define_stage(handler, own_tools=False, guard=False):
    """Wrap a stage handler with its scope: own_tools=True on a
    before_toolcall handler limits it to this plugin's own tool calls (Go's
    StageScopeOwnTools), so it is not a guard over other plugins.
    guard=True marks a handler that may refuse the message (set
    "response"): when Hearth cannot run it (the process died or did not
    answer in time), the message is refused instead of passing (Go's
    RegisterGuardStage)."""
    if not callable(handler):
        raise ValueError("define_stage: handler must be callable")
    return StageHandler(handler, bool(own_tools), bool(guard))


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
    m = {
        "id": plugin["id"], "name": plugin["name"], "version": plugin["version"],
        "description": plugin.get("description", ""), "scopes": plugin.get("scopes", []),
        "requires": plugin.get("requires", []), "defaultModes": plugin.get("defaultModes", {}),
        "instructions": str(_settle(instructions(services)) or "") if dynamic else instructions,
        "dynamicInstructions": dynamic, "hasContext": callable(plugin.get("context")),
        "icon": plugin.get("icon"), "core": plugin.get("core"), "maxAgentSteps": plugin.get("maxAgentSteps"),
        "cloud": plugin.get("cloud"), "contributes": plugin.get("contributes"), "i18n": plugin.get("i18n"),
        "legacy": plugin.get("legacy"), "dataSources": plugin.get("dataSources"),
        "preferences": {name: _wire_preference(d) for name, d in (plugin.get("preferences") or {}).items()},
        "providers": {k: _wire_provider(d) for k, d in (plugin.get("providers") or {}).items()},
        "speech": {k: _wire_speech(d) for k, d in (plugin.get("speech") or {}).items()},
        "ocr": {k: _wire_ocr(d) for k, d in (plugin.get("ocr") or {}).items()},
    }
    return {k: v for k, v in m.items() if v not in (None, {}, False, 0, "") or k in (
        "id", "name", "version", "description", "scopes", "requires", "defaultModes", "instructions")}


def _wire_preference(d):
    out = {"title": d.title, "kind": d.kind, "schema": d.schema()}
    for k, v in (("description", d.description), ("options", d.options), ("screen", d.screen)):
        if v:
            out[k] = v
    return out


def _wire_ocr(d):
    return {"name": d.name, "credentialFrom": d.credential_from}


def _wire_models(models):
    return [dict(m) for m in models or []]


def _wire_provider(d):
    return {"name": d.name, "description": d.description, "auth": d.auth, "defaultBaseURL": d.default_base_url,
            "editableBaseURL": d.editable_base_url, "models": _wire_models(d.models), "defaultModel": d.default_model,
            "efforts": list(d.efforts or []), "credentialHint": d.credential_hint,
            "hasListModels": callable(d.list_models), "hasSignIn": callable(d.sign_in), "hasBalance": callable(d.balance)}


def _wire_account(acc):
    if isinstance(acc, dict):
        available, balances = acc.get("available"), acc.get("balances")
    else:
        available, balances = getattr(acc, "available", None), getattr(acc, "balances", None)
    if not isinstance(balances, list):
        raise ValueError("balance: the answer has no balances list")
    out = []
    for b in balances:
        get = b.get if isinstance(b, dict) else (lambda k, b=b: getattr(b, {"toppedUp": "topped_up"}.get(k, k), None))
        total = float(get("total"))
        if total != total or total in (float("inf"), float("-inf")):
            raise ValueError("balance: a total is not a number")
        e = {"currency": str(get("currency") or ""), "total": total}
        for k in ("granted", "toppedUp"):
            if get(k) is not None:
                e[k] = float(get(k))
        out.append(e)
    return {"available": bool(available), "balances": out}


def _wire_speech(d):
    return {"name": d.name, "description": d.description, "defaultBaseURL": d.default_base_url,
            "editableBaseURL": d.editable_base_url, "models": _wire_models(d.models), "defaultModel": d.default_model,
            "credentialHint": d.credential_hint, "keyURL": d.key_url, "credentialFrom": d.credential_from,
            "hasTranscribe": callable(d.transcribe), "hasStream": callable(d.stream)}


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

    def __init__(self, data, cancelled, kv=None, services=None, plugin_id=""):
        super().__init__(data or {})
        self.cancelled = cancelled
        self.progress = None
        self.kv = kv
        self.services = services
        self.cloud = None  # Hearth has no PKU harness Cloud
        self._plugin_id = plugin_id

    def provider(self, key):
        """The address and key of one of this plugin's model providers
        (PKU's ctx.provider); this host does not run providers yet."""
        raise ToolError("provider %s.%s: %s" % (self._plugin_id, key, NOT_SUPPORTED))

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
        self.data_dir = conn.data_dir  # the plugin's own data directory
        self.config = conn.config  # the plugin's config from Hearth, if any

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
        """Hearth's setting key; core.daemon.data_dir answers this plugin's
        own data directory (a child has no business in Hearth's), as Go
        child plugins have it."""
        if key == "core.daemon.data_dir":
            return self.data_dir
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

    # memory and knowledge: each request names the Hearth request being
    # served (its call token, see _call_token), so Hearth acts in that
    # turn's conversation; outside one, in the global scope.
    def _memory(self, method, params):
        token = _call_token.get()
        if token:
            params = dict(params, callToken=token)
        return self._conn.call(method, params)

    # memory
    def recall(self, query, depth=1):
        return self._memory("memory.recall", {"query": list(query), "depth": depth})

    def commit(self, triples):
        self._memory("memory.commit", {"triples": triples})

    def introspect(self):
        return self._memory("memory.introspect", {}) or {}

    def merge_entities(self, source, target):
        return (self._memory("memory.merge", {"source": source, "target": target}) or {}).get("count", 0)

    def purge(self, criteria, mode="soft"):
        return (self._memory("memory.purge", {"criteria": criteria, "mode": mode}) or {}).get("count", 0)

    def doc_stats(self):
        return self._memory("memory.docStats", {}) or {}

    def append_text(self, role, content, channel="", timestamp=0):
        self._memory("memory.appendText", {"role": role, "content": content, "channel": channel, "timestamp": timestamp})

    def query_docs(self, query, top_k=5):
        return self._memory("memory.docQuery", {"query": query, "topK": top_k}) or []

    def insert_doc(self, title, content, id=""):
        return (self._memory("memory.docInsert", {"id": id, "title": title, "content": content}) or {}).get("id")

    def remove_doc(self, id):
        self._memory("memory.docRemove", {"id": id})

    # knowledge
    def search_knowledge(self, query, top_k=5):
        return self._memory("knowledge.search", {"query": query, "topK": top_k}) or []

    def add_knowledge(self, name, content):
        self._memory("knowledge.add", {"name": name, "content": content})

    def list_knowledge(self):
        return self._memory("knowledge.list", {}) or []


# _call_token is the call token of the Hearth request this thread (or
# task) serves: tool.call, stage.run, hook.decide and plugin.context carry
# one, and the memory and knowledge requests made while serving it send it
# back. A thread the plugin starts itself has none (contextvars are not
# inherited by threads): its requests act in the global scope, unless it
# runs a function in_call made.
_call_token = contextvars.ContextVar("hearth_call_token", default="")


def in_call(fn):
    """Return fn bound to the Hearth request being served: run where the
    call's context does not follow (a threading.Thread, an executor), it
    reads and writes memory and knowledge in that request's conversation
    while the request runs. Once the request is answered its writes raise
    CallEnded and its reads act in the global scope, instead of writing in
    global where every conversation would read them.

        threading.Thread(target=in_call(work), args=(x,)).start()
    """
    ctx = contextvars.copy_context()

    def run(*args, **kwargs):
        return ctx.copy().run(fn, *args, **kwargs)
    return run

_TOKEN_METHODS = ("tool.call", "stage.run", "hook.decide", "plugin.context")


def _settle(value):
    """The value of a plugin function's answer: a coroutine (an async def)
    is run to completion in the calling thread, which is the request's
    own; anything else is the answer."""
    if inspect.iscoroutine(value):
        return asyncio.run(value)
    return value


def _injection(text, channel, chat_id, user_id, group_id, interrupt, no_memory):
    d = {"channel": channel, "text": text}
    for k, v in (("chatId", chat_id), ("userId", user_id), ("groupId", group_id),
                 ("interrupt", interrupt), ("noMemory", no_memory)):
        if v:
            d[k] = v
    return d


# ToolContext is the seed's name for what a tool's execute receives.
ToolContext = Context


class ToolDef(TypedDict, total=False):
    """What define_tool returns (the seed's ToolDef, keys as on the wire)."""
    title: str
    description: Dynamic[str]
    input: Dict[str, Any]
    effect: str
    resolveEffect: Optional[Callable[..., Any]]
    untrusted: bool
    userOnly: bool
    onDemand: bool
    grant: bool
    alwaysAsk: bool
    serial: bool
    dayScoped: bool
    timeoutMs: int
    channels: List[str]
    execute: Callable[[Dict[str, Any], Context], Any]


class PluginDef(TypedDict, total=False):
    """What define_plugin returns (the seed's PluginDef, keys as on the
    wire; remote is never set by a plugin)."""
    id: str
    name: str
    description: str
    version: str
    maxAgentSteps: int
    icon: str
    core: bool
    requires: List[str]
    cloud: Dict[str, Any]
    preferences: Dict[str, PluginPreferenceDef]
    defaultModes: Dict[str, str]
    scopes: List[str]
    tools: Dict[str, ToolDef]
    dataSources: Dict[str, DataSourceDef]
    providers: Dict[str, ProviderDef]
    speech: Dict[str, SpeechProviderDef]
    ocr: Dict[str, OcrProviderDef]
    instructions: Dynamic[str]
    context: Optional[Callable[[ContextInput], Optional[str]]]
    contributes: Dict[str, Any]
    i18n: Dict[str, PluginTranslation]
    legacy: PluginLegacy
    stages: Dict[str, Any]
    decide: Any
    start: Optional[Callable[..., None]]
    stop: Optional[Callable[[], None]]


class RPCError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


CALL_ENDED = -32007


class CallEnded(RPCError):
    """A memory or knowledge write refused because the request it was made
    for has been answered (or its token is not this plugin's): work a call
    left behind (a task, a thread run through in_call) may not write once
    the call returned. Work outside any call (start, a thread of the
    plugin's own) sends no token and writes in the global scope."""


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
        self.data_dir = ""  # initialize's dataDir
        self.config = {}  # initialize's config

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
            code = slot["error"].get("code", -32603)
            raise (CallEnded if code == CALL_ENDED else RPCError)(code, slot["error"].get("message", ""))
        return slot.get("result")

    # Requests from Hearth.

    def handle(self, msg):
        mid = msg.get("id")
        cancelled = threading.Event()
        if mid is not None:
            with self.lock:
                self.running[json.dumps(mid)] = cancelled
        params = msg.get("params") or {}
        token = params.get("callToken") if msg.get("method") in _TOKEN_METHODS and isinstance(params, dict) else ""
        reset = _call_token.set(token if isinstance(token, str) else "")
        try:
            result = self.dispatch(msg.get("method"), params, cancelled)
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
            _call_token.reset(reset)
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

    def provider_call(self, method, params):
        """provider.listModels / provider.balance: the provider's function
        with the host's configuration, its answer in wire form."""
        key = params.get("provider")
        d = (self.plugin.get("providers") or {}).get(key) if isinstance(key, str) else None
        fn_name = "list_models" if method == "provider.listModels" else "balance"
        fn = getattr(d, fn_name, None) if d is not None else None
        if d is None:
            raise RPCError(-32005, "unknown provider %s" % key)
        if not callable(fn):
            raise RPCError(-32005, "provider %s has no %s" % (key, fn_name))
        c = params.get("config") or {}
        cfg = ProviderConfig(base_url=str(c.get("baseURL") or ""), model=str(c.get("model") or ""),
                             credential=c.get("credential") or None)
        out = _settle(fn(cfg))
        if method == "provider.balance":
            return _wire_account(out)
        if not isinstance(out, list) or any(not isinstance(m, dict) or not m.get("id") for m in out):
            raise ValueError("listModels: not a list of models with ids")
        return _wire_models(out)

    def preference(self, name):
        """The preference name and the SettingContext it gets, or an RPCError."""
        pref = (self.plugin.get("preferences") or {}).get(name)
        if pref is None:
            raise RPCError(-32005, "unknown preference %s" % name)
        services = Services(self)
        return pref, SettingContext(services.kv, services)

    def _start(self):
        try:
            _settle(self.plugin["start"](Services(self)))
        except Exception:
            log("start failed", level="ERROR", error=traceback.format_exc())

    def dispatch(self, method, params, cancelled):
        p = self.plugin
        if method == "initialize":
            if PROTOCOL_VERSION not in params.get("protocolVersions", []):
                raise RPCError(-32001, "the plugin speaks protocol version %d; the host offered %s"
                               % (PROTOCOL_VERSION, params.get("protocolVersions")))
            self.data_dir = params.get("dataDir") or ""
            self.config = params.get("config") or {}
            services = Services(self)
            for name, tool in p["tools"].items():
                wire = {k: v for k, v in tool.items() if k not in ("execute", "input", "resolveEffect")}
                wire["name"] = name
                wire["parameters"] = tool["input"]
                wire["hasResolveEffect"] = callable(tool.get("resolveEffect"))
                wire["dynamicDescription"] = callable(tool["description"])
                wire["description"] = str(_settle(resolve_dynamic(tool["description"], services)) or "")
                self.call("tools.register", wire)
            i = 0
            for stage, handlers in p["stages"].items():
                for h in _stage_handlers(handlers):
                    i += 1
                    self.stage_ids[i] = (stage, h.handler)
                    reg = {"id": i, "stage": stage}
                    if h.own_tools:
                        reg["ownTools"] = True
                    if h.guard:
                        reg["guard"] = True
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
            return wire_assessment(_settle(tool["resolveEffect"](params.get("args") or {}, Services(self))))
        if method == "hook.decide":
            hook = self.hooks.get(params.get("id", 0))
            if hook is None:
                raise RPCError(-32005, "unknown decision hook %s" % params.get("id"))
            call = {"tool": params.get("tool"), "args": params.get("args") or {},
                    "context": Context(params.get("context"), cancelled)}
            return _wire_decision(_settle(hook(call)))
        if method == "plugin.context":
            if not callable(p.get("context")):
                raise RPCError(-32005, "the plugin has no context function")
            services = Services(self)
            return {"text": str(_settle(p["context"](ContextInput(params.get("query", ""), services.kv, services))) or "")}
        if method == "tool.describe":
            tool = p["tools"].get(params.get("tool"))
            if tool is None:
                raise RPCError(-32005, "unknown tool %s" % params.get("tool"))
            return {"text": str(_settle(resolve_dynamic(tool["description"], Services(self))) or "")}
        if method == "preference.get":
            pref, sc = self.preference(params.get("name"))
            return {"value": _settle(pref.get(sc))}
        if method == "preference.set":
            pref, sc = self.preference(params.get("name"))
            try:
                value = pref.check(params.get("value"))
            except (ValueError, TypeError) as e:
                raise RPCError(-32602, "invalid value for %s.%s: %s" % (p["id"], params.get("name"), e))
            _settle(pref.set(sc, value))
            return {}
        if method == "provider.listModels":
            return {"models": self.provider_call(method, params)}
        if method == "provider.balance":
            return {"account": self.provider_call(method, params)}
        if method == "plugin.instructions":
            return {"text": str(_settle(resolve_dynamic(p.get("instructions") or "", Services(self))) or "")}
        if method == "tool.call":
            tool = p["tools"].get(params.get("tool"))
            if tool is None:
                raise RPCError(-32005, "unknown tool %s" % params.get("tool"))
            ctx = Context(params.get("context"), cancelled, KV(self), Services(self), p["id"])
            token = params.get("progressToken")
            if token:
                def progress(done, total=0, message="", token=token):
                    self.send({"jsonrpc": "2.0", "method": "tool.progress",
                               "params": {"token": token, "done": float(done), "total": float(total), "message": str(message)}})
                ctx.progress = progress
            value = _settle(tool["execute"](params.get("args") or {}, ctx))
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
                out = _settle(entry[1](ctx))
            except Exception as e:  # the handler's error, as a Go handler returns one
                log("stage handler failed", level="ERROR", stage=entry[0], error=traceback.format_exc())
                return {"context": ctx, "error": str(e) or type(e).__name__}
            return {"context": out if out is not None else ctx}
        if method == "speech.transcribe":
            d = (p.get("speech") or {}).get(params.get("provider"))
            if d is None or not callable(d.transcribe):
                raise RPCError(-32005, "no transcribe for speech provider %s" % params.get("provider"))
            config = SpeechConfig(base_url=params.get("baseURL") or "", model=params.get("model") or "",
                                  credential=params.get("credential") or None)
            name = params.get("name") or "audio.wav"
            audio = SpeechAudio(file=base64.b64decode(params.get("file") or ""), uri="hearth:" + name, name=name,
                                mime_type=params.get("mimeType") or "audio/wav")
            return {"text": str(_settle(d.transcribe(config, audio, cancelled)) or "")}
        if method == "ocr.recognize":
            d = (p.get("ocr") or {}).get(params.get("provider"))
            if d is None or not callable(d.recognize):
                raise RPCError(-32005, "no recognize for OCR provider %s" % params.get("provider"))
            name = params.get("name") or "document"
            doc = OcrDocument(file=base64.b64decode(params.get("file") or ""), uri="hearth:" + name, name=name,
                              mime_type=params.get("mimeType") or "application/pdf")
            config = {"base_url": params.get("baseURL") or "", "credential": params.get("credential") or ""}
            return {"text": str(_settle(d.recognize(config, doc, cancelled)) or "")}
        if method == "$/ping":
            return "pong"
        if method == "shutdown":
            if callable(p.get("stop")):
                _settle(p["stop"]())
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
