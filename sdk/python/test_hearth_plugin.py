"""Unit tests of the Python SDK; the Go suite runs them (python3 -m unittest)."""
import io
import json
import threading
import unittest

import hearth_plugin as hp


class FakeHost:
    """Plays Hearth's side: answers the plugin's registrations."""

    def __init__(self, plugin):
        self.to_plugin_r, self.to_plugin_w = _pipe()
        self.from_plugin = _Lines()
        self.conn = hp._Connection(plugin, self.to_plugin_r, self.from_plugin)
        self.thread = threading.Thread(target=self.conn.run, daemon=True)
        self.thread.start()
        self.registered = []
        self.kv = {}
        self.progress = []
        self.answers = {}  # method -> params -> result: more of Hearth's services
        self.asked = []  # (method, params) of the calls answered from answers

    def request(self, mid, method, params, until=None):
        if method is not None:
            self.to_plugin_w.write(json.dumps({"jsonrpc": "2.0", "id": mid, "method": method, "params": params}) + "\n")
            self.to_plugin_w.flush()
        while True:
            msg = self.from_plugin.next()
            if msg.get("method") in ("tools.register", "stages.register", "hooks.register"):
                self.registered.append(msg["params"])
                self.to_plugin_w.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": {}}) + "\n")
                self.to_plugin_w.flush()
                continue
            if msg.get("method") == "tool.progress":  # a notification: no answer
                self.progress.append(msg["params"])
                continue
            if msg.get("method") == "knowledge.search":  # one of Hearth's services, as the wire has it
                result = [{"name": "wifi", "content": "密码 (%s, %d)" % (msg["params"]["query"], msg["params"]["topK"])}]
                self.to_plugin_w.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
                self.to_plugin_w.flush()
                continue
            if msg.get("method", "").startswith("kv."):  # Hearth's storage, as the wire has it
                key, result = msg["params"]["key"], {}
                if msg["method"] == "kv.get":
                    result = {"value": json.loads(self.kv[key]), "found": True} if key in self.kv else {"found": False}
                elif msg["method"] == "kv.set":
                    self.kv[key] = json.dumps(msg["params"]["value"])
                else:
                    self.kv.pop(key, None)
                self.to_plugin_w.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
                self.to_plugin_w.flush()
                continue
            if msg.get("method") in self.answers:
                self.asked.append((msg["method"], msg["params"]))
                result = self.answers[msg["method"]](msg["params"])
                self.to_plugin_w.write(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}) + "\n")
                self.to_plugin_w.flush()
                if mid is None and msg["method"] == until:
                    return msg
                continue
            if msg.get("id") == mid:
                return msg

    def serve_until(self, method):
        """Answers the plugin's calls until it called method."""
        return self.request(None, None, None, until=method)


def _pipe():
    import os
    r, w = os.pipe()
    return io.open(r, "r", encoding="utf-8"), io.open(w, "w", encoding="utf-8")


class _Lines:
    def __init__(self):
        self.cv = threading.Condition()
        self.buf = ""
        self.msgs = []

    def write(self, s):
        with self.cv:
            self.buf += s
            while "\n" in self.buf:
                line, self.buf = self.buf.split("\n", 1)
                self.msgs.append(json.loads(line))
            self.cv.notify_all()

    def flush(self):
        pass

    def next(self):
        with self.cv:
            self.cv.wait_for(lambda: self.msgs, timeout=10)
            return self.msgs.pop(0)


def plugin():
    return hp.define_plugin(id="t", name="T", version="1.0.0", tools={
        "echo": hp.define_tool(description="echo", effect="read", execute=lambda a, c: {"a": a, "actor": c.actor, "injectedBy": c.get("injectedBy")}),
        "text": hp.define_tool(description="text", execute=lambda a, c: "plain"),
        "boom": hp.define_tool(description="boom", execute=lambda a, c: 1 / 0),
        "refuse": hp.define_tool(description="refuse", execute=lambda a, c: (_ for _ in ()).throw(hp.ToolError("不行"))),
        "count": hp.define_tool(description="count", execute=_count),
        "long": hp.define_tool(description="long", effect="read", execute=_long),
        "lookup": hp.define_tool(description="lookup", effect="read",
                                 execute=lambda a, c: c.services.search_knowledge("wifi 密码", 2)),
    })


def _long(args, ctx):
    if ctx.progress is None:
        return "no progress"
    for i in (1, 2, 3):
        ctx.progress(i, 3, "step %d" % i)
    return "reported"


def _count(args, ctx):
    n = ctx.kv.get("n", 0) + 1
    ctx.kv.set("n", n)
    if n == 2:
        ctx.kv.delete("n")
    return {"n": n, "after": ctx.kv.get("n")}


class SDKTest(unittest.TestCase):
    def setUp(self):
        self.host = FakeHost(plugin())
        init = self.host.request(1, "initialize", {"protocolVersions": [1], "plugin": "t"})
        self.assertEqual(init["result"]["protocolVersion"], 1)

    def test_registrations_carry_policy_fields(self):
        names = sorted(r["name"] for r in self.host.registered)
        self.assertEqual(names, ["boom", "count", "echo", "long", "lookup", "refuse", "text"])
        echo = [r for r in self.host.registered if r["name"] == "echo"][0]
        self.assertEqual(echo["effect"], "read")
        self.assertEqual(echo["parameters"], {"type": "object", "properties": {}})

    def test_tool_results_and_errors(self):
        r = self.host.request(2, "tool.call", {"tool": "echo", "args": {"x": 1}, "context": {"actor": "agent"}})
        self.assertEqual(r["result"]["value"], {"a": {"x": 1}, "actor": "agent", "injectedBy": None})
        r = self.host.request(7, "tool.call", {"tool": "echo", "args": {}, "context": {"actor": "agent", "injectedBy": "relay"}})
        self.assertEqual(r["result"]["value"], {"a": {}, "actor": "agent", "injectedBy": "relay"})
        r = self.host.request(3, "tool.call", {"tool": "text", "args": {}})
        self.assertEqual(r["result"]["text"], "plain")
        r = self.host.request(4, "tool.call", {"tool": "refuse", "args": {}})
        self.assertEqual(r["error"], {"code": -32003, "message": "不行"})
        r = self.host.request(5, "tool.call", {"tool": "boom", "args": {}})
        self.assertEqual(r["error"]["code"], -32003)
        r = self.host.request(6, "nope", {})
        self.assertEqual(r["error"]["code"], -32601)

    def test_progress_goes_out_as_tool_progress(self):
        r = self.host.request(2, "tool.call", {"tool": "long", "args": {}, "progressToken": 7})
        self.assertEqual(r["result"]["text"], "reported")
        self.assertEqual(self.host.progress, [{"token": 7, "done": float(i), "total": 3.0, "message": "step %d" % i} for i in (1, 2, 3)])
        r = self.host.request(3, "tool.call", {"tool": "long", "args": {}})
        self.assertEqual(r["result"]["text"], "no progress")
        self.assertEqual(len(self.host.progress), 3)

    def test_plugin_storage_goes_to_hearth(self):
        r = self.host.request(2, "tool.call", {"tool": "count", "args": {}})
        self.assertEqual(r["result"]["value"], {"n": 1, "after": 1})
        r = self.host.request(3, "tool.call", {"tool": "count", "args": {}})
        self.assertEqual(r["result"]["value"], {"n": 2, "after": None})

    def test_services_over_the_protocol(self):
        r = self.host.request(2, "tool.call", {"tool": "lookup", "args": {}})
        self.assertEqual(r["result"]["value"], [{"name": "wifi", "content": "密码 (wifi 密码, 2)"}])

    def test_memory_requests_carry_the_call_token(self):
        seen = []
        orig = self.host.conn.call

        def call(method, params, timeout=30):
            seen.append((method, params.get("callToken")))
            return orig(method, params, timeout)
        self.host.conn.call = call
        r = self.host.request(2, "tool.call", {"tool": "lookup", "args": {}, "callToken": "tok-1"})
        self.assertIn("result", r)
        self.host.request(3, "tool.call", {"tool": "lookup", "args": {}})
        self.assertEqual(seen, [("knowledge.search", "tok-1"), ("knowledge.search", None)])
        self.assertEqual(hp._call_token.get(), "")  # nothing leaks out of the request

    def test_version_mismatch(self):
        host = FakeHost(plugin())
        r = host.request(1, "initialize", {"protocolVersions": [7]})
        self.assertEqual(r["error"]["code"], -32001)

    def test_bad_effect_rejected(self):
        with self.assertRaises(ValueError):
            hp.define_tool(description="x", execute=None, effect="teleport")


def _resolve(args, services):
    to = args.get("to")
    if to == "mallory":
        raise ValueError("mallory is a known scammer")
    if to == "self":
        return "read"
    if to == "garbage":
        return "teleport"
    return {"effect": "money", "target": {"label": "转账给 %s" % to}}


def _decide(call):
    if call["args"].get("to") == "eve":
        return {"verdict": "deny", "reason": "eve is blocked"}
    if call["tool"] == "x__null":
        return None
    return {"verdict": "allow"}


class PolicyTest(unittest.TestCase):
    """The manifest, resolve_effect and the decision hook travel."""

    def setUp(self):
        bank = hp.define_plugin(
            id="bank", name="银行", version="1.0.0", default_modes={"money": "ask", "public": "off"},
            requires=["network"], instructions="Pay with bank__pay.",
            context=lambda query: "balance 42, asked: " + query, decide=_decide,
            tools={"transfer": hp.define_tool(description="transfer", execute=lambda a, c: "ok",
                                              resolve_effect=_resolve, channels=["web"])})
        self.host = FakeHost(bank)
        self.init = self.host.request(1, "initialize", {"protocolVersions": [1], "plugin": "bank"})

    def test_manifest(self):
        m = self.init["result"]["manifest"]
        self.assertEqual(m["defaultModes"], {"money": "ask", "public": "off"})
        self.assertEqual(m["requires"], ["network"])
        self.assertEqual(m["instructions"], "Pay with bank__pay.")
        self.assertTrue(m["hasContext"])
        transfer = [r for r in self.host.registered if r.get("name") == "transfer"][0]
        self.assertTrue(transfer["hasResolveEffect"])
        self.assertEqual(transfer["channels"], ["web"])
        self.assertNotIn("resolveEffect", transfer)
        r = self.host.request(2, "plugin.context", {"query": "hi"})
        self.assertEqual(r["result"], {"text": "balance 42, asked: hi"})

    def test_resolve_effect(self):
        def resolve(mid, to):
            return self.host.request(mid, "tool.resolveEffect", {"tool": "transfer", "args": {"to": to}})
        self.assertEqual(resolve(2, "bob")["result"], {"effect": "money", "target": {"label": "转账给 bob"}})
        self.assertEqual(resolve(3, "self")["result"], {"effect": "read"})
        self.assertIn("scammer", resolve(4, "mallory")["error"]["message"])
        self.assertIn("teleport", resolve(5, "garbage")["error"]["message"])

    def test_decision_hook(self):
        def decide(mid, tool, to):
            return self.host.request(mid, "hook.decide", {"id": 0, "tool": tool, "args": {"to": to}, "context": {}})
        self.assertEqual(decide(2, "bank__transfer", "eve")["result"], {"verdict": "deny", "reason": "eve is blocked"})
        self.assertEqual(decide(3, "bank__transfer", "bob")["result"], {"verdict": "allow", "reason": ""})
        self.assertIn("error", decide(4, "x__null", "bob"))


def _relay(args, ctx):
    """A tool that relays through Hearth's input and model services."""
    s = ctx.services
    s.inject("提醒：" + args["text"], channel="terminal", user_id="u1", no_memory=True)
    answer = s.inject_sync(args["text"], channel="plugin:go")
    s.set_source("backup")
    return {"answer": answer, "sources": s.list_sources(), "current": s.current_source()}


class GoParityTest(unittest.TestCase):
    """What a Go child plugin has: injection, the LLM API, every stage and
    decision hook registration, start and stop, all settings and memory."""

    def setUp(self):
        self.events = []
        self.started = threading.Event()

        def start(services):
            services.inject("已启动", channel="plugin:go")
            self.started.set()

        def guard(ctx):
            for call in ctx.get("toolCalls") or []:
                call["deny"] = "no"
            return ctx

        def failing(ctx):
            ctx["finalText"] = "half-changed"
            raise RuntimeError("stage broke")

        self.plugin = hp.define_plugin(
            id="go", name="Go", version="1.0.0", start=start, stop=lambda: self.events.append("stop"),
            tools={"relay": hp.define_tool(description="relay", execute=_relay,
                                           input={"type": "object", "properties": {"text": {"type": "string"}}})},
            stages={"on_input": [lambda c: dict(c, rawMessage=c["rawMessage"].upper()), lambda c: None],
                    "before_toolcall": hp.define_stage(guard, own_tools=True), "before_output": failing},
            decide=[lambda call: {"verdict": "allow"}, lambda call: {"verdict": "ask", "reason": "second"}])
        self.host = FakeHost(self.plugin)
        self.host.answers.update({
            "input.inject": lambda p: {}, "input.injectSync": lambda p: {"text": "答：" + p["text"]},
            "llm.listSources": lambda p: ["main", "backup"], "llm.setSource": lambda p: {},
            "llm.currentSource": lambda p: "backup",
        })
        self.init = self.host.request(1, "initialize", {"protocolVersions": [1], "plugin": "go"})
        self.host.serve_until("input.inject")
        self.assertTrue(self.started.wait(10))

    def test_start_injects_after_the_handshake(self):
        self.assertIn("result", self.init)
        self.assertEqual(self.host.asked[0], ("input.inject", {"channel": "plugin:go", "text": "已启动"}))

    def test_injection_and_llm(self):
        r = self.host.request(2, "tool.call", {"tool": "relay", "args": {"text": "开会"}, "context": {"actor": "agent"}})
        self.assertEqual(r["result"]["value"], {"answer": "答：开会", "sources": ["main", "backup"], "current": "backup"})
        asked = self.host.asked[1:]
        self.assertEqual(asked[0], ("input.inject", {"channel": "terminal", "text": "提醒：开会", "userId": "u1", "noMemory": True}))
        self.assertEqual(asked[1], ("input.injectSync", {"channel": "plugin:go", "text": "开会"}))
        self.assertEqual(asked[2], ("llm.setSource", {"name": "backup"}))

    def test_stage_registrations(self):
        stages = [r for r in self.host.registered if "stage" in r]
        self.assertEqual(stages, [{"id": 1, "stage": "on_input"}, {"id": 2, "stage": "on_input"},
                                  {"id": 3, "stage": "before_toolcall", "ownTools": True}, {"id": 4, "stage": "before_output"}])
        hooks = [r for r in self.host.registered if "stage" not in r and "name" not in r]
        self.assertEqual(hooks, [{"id": 0}, {"id": 1}])

    def test_stage_runs(self):
        r = self.host.request(2, "stage.run", {"id": 1, "context": {"rawMessage": "hi", "phase": "on_input"}})
        self.assertEqual(r["result"]["context"]["rawMessage"], "HI")
        r = self.host.request(3, "stage.run", {"id": 2, "context": {"rawMessage": "hi", "phase": "on_input"}})
        self.assertEqual(r["result"]["context"]["rawMessage"], "hi")  # None keeps the context
        r = self.host.request(4, "stage.run", {"id": 3, "context": {"phase": "before_toolcall", "toolCalls": [{"id": "c", "name": "go__relay"}]}})
        self.assertEqual(r["result"]["context"]["toolCalls"][0]["deny"], "no")
        r = self.host.request(5, "stage.run", {"id": 4, "context": {"phase": "before_output", "finalText": "x"}})
        self.assertEqual(r["result"]["error"], "stage broke")  # as a Go handler's error: the host decides
        self.assertEqual(r["result"]["context"]["finalText"], "half-changed")
        r = self.host.request(6, "stage.run", {"id": 9, "context": {}})
        self.assertEqual(r["error"]["code"], -32005)

    def test_hooks_by_id(self):
        r = self.host.request(2, "hook.decide", {"id": 1, "tool": "x__y", "args": {}, "context": {}})
        self.assertEqual(r["result"], {"verdict": "ask", "reason": "second"})
        r = self.host.request(3, "hook.decide", {"id": 5, "tool": "x__y", "args": {}, "context": {}})
        self.assertEqual(r["error"]["code"], -32005)

    def test_shutdown_runs_stop(self):
        self.host.request(2, "shutdown", {})
        self.assertEqual(self.events, ["stop"])

    def test_bad_definitions(self):
        for kw in ({"stages": {"on_lunch": lambda c: c}}, {"stages": {"on_input": [3]}}, {"decide": [3]}, {"start": 3}):
            with self.assertRaises(ValueError):
                hp.define_plugin(id="x", name="x", version="1", tools={}, **kw)

    def test_settings_and_memory_on_the_wire(self):
        conn, sent = _Recorder(), []
        s = hp.Services(conn)
        s.register_setting("limit", type="int", max=50, default=10, secret=False)
        s.setting_defs("l")
        self.assertEqual(s.get_core("core.daemon.data_dir"), "/data/plugins/go")  # answered here
        s.get_core("core.ui.lang")
        s.set_core("k", 1)
        s.list_core("a")
        s.get_plugin_setting("memo", "k")
        s.set_plugin_setting("memo", "k", "v")
        s.list_plugin_settings("memo")
        s.dump_settings()
        s.setting_plugins()
        s.introspect()
        s.merge_entities("a", "b")
        s.purge({"name": "x"})
        s.doc_stats()
        self.assertEqual(conn.calls, [
            ("settings.registerDef", {"key": "limit", "type": "int", "display_name": "limit", "default": 10, "max": 50}),
            ("settings.defs", {"prefix": "l"}), ("settings.getCore", {"key": "core.ui.lang"}),
            ("settings.setCore", {"key": "k", "value": 1}), ("settings.listCore", {"prefix": "a"}),
            ("settings.getPlugin", {"plugin": "memo", "key": "k"}),
            ("settings.setPlugin", {"plugin": "memo", "key": "k", "value": "v"}),
            ("settings.listPlugin", {"plugin": "memo", "prefix": ""}), ("settings.dump", {}), ("settings.plugins", {}),
            ("memory.introspect", {}), ("memory.merge", {"source": "a", "target": "b"}),
            ("memory.purge", {"criteria": {"name": "x"}, "mode": "soft"}), ("memory.docStats", {}),
        ])


class _Recorder:
    """A connection that records calls and answers None."""

    def __init__(self):
        self.calls = []
        self.data_dir = "/data/plugins/go"
        self.config = {}

    def call(self, method, params, timeout=30):
        self.calls.append((method, params))
        return None


class InCallTest(unittest.TestCase):
    def test_thread_gets_the_call_token_only_through_in_call(self):
        import threading
        import hearth_plugin as hp
        seen = {}
        reset = hp._call_token.set("7.token")
        try:
            wrapped = hp.in_call(lambda key: seen.__setitem__(key, hp._call_token.get()))
            threads = [threading.Thread(target=wrapped, args=("a",)), threading.Thread(target=wrapped, args=("b",)),
                       threading.Thread(target=lambda: seen.__setitem__("plain", hp._call_token.get()))]
        finally:
            hp._call_token.reset(reset)
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(seen, {"a": "7.token", "b": "7.token", "plain": ""})

    def test_call_ended_is_an_rpc_error(self):
        import hearth_plugin as hp
        self.assertTrue(issubclass(hp.CallEnded, hp.RPCError))
        self.assertEqual(hp.CALL_ENDED, -32007)


if __name__ == "__main__":
    unittest.main()
