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

    def request(self, mid, method, params):
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
            if msg.get("id") == mid:
                return msg


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


if __name__ == "__main__":
    unittest.main()
