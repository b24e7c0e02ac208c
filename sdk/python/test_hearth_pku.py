"""Unit tests of the Python SDK's PKU harness surface (seed 001); the Go
suite runs them (internal/compat)."""
import json
import threading
import unittest
from http.server import BaseHTTPRequestHandler, HTTPServer

import hearth_plugin as hp
from test_hearth_plugin import FakeHost


def _store(key, default):
    def get(c):
        return c.kv.get(key, default)

    def set(c, value):
        c.kv.set(key, value)
    return get, set


def pku_plugin():
    vision_get, vision_set = _store("vision", False)
    apps_get, apps_set = _store("apps", [])
    return hp.define_plugin(
        id="copilot", name="助手", version="1.0.0", icon="card", core=True, max_agent_steps=20,
        requires=["network"], cloud={"optional": True}, contributes={"widgets": {}},
        tools={
            "balance": hp.define_tool(title="余额", effect="read", execute=lambda a, c: {"yuan": 42},
                                      description=lambda s: "余额；共 %d 个应用" % len(s.kv.get("apps", []))),
            "pay": hp.define_tool(description="付款", effect="money", execute=lambda a, c: c.provider("ds")),
        },
        preferences={
            "screenshots": hp.define_preference(title="允许 AI 查看截图", kind="boolean", get=vision_get, set=vision_set),
            "apps": hp.define_preference(title="应用", kind="list", get=apps_get, set=apps_set,
                                         input={"type": "array", "items": {"type": "string"}, "maxItems": 2}),
            "mode": hp.define_preference(title="模式", kind="choice", get=lambda c: "fast", set=lambda c, v: None,
                                         options=[{"value": "fast", "label": "快"}, {"value": "slow", "label": "慢"}]),
        },
        data_sources={"balance": {"title": "余额", "tool": "balance", "args": {}, "ttlMs": 600000}},
        providers={"ds": hp.ProviderDef(name="DS", description="d", auth="apiKey", default_base_url="https://x/v1",
                                        models=[{"id": "m", "contextWindow": 128000}], default_model="m",
                                        create_model=lambda cfg: None, efforts=["low", "high"], balance=lambda cfg: None)},
        speech={"asr": hp.SpeechProviderDef(name="ASR", description="a", default_base_url="https://x/v1",
                                            models=[{"id": "s", "name": "S"}], default_model="s",
                                            credential_from="ds", transcribe=hp.open_ai_transcribe)},
        ocr={"doc": hp.OcrProviderDef(name="OCR", credential_from="ds", recognize=lambda cfg, doc, signal=None: "")},
        i18n={"en": {"name": "Copilot", "preferences": {"screenshots": {"title": "Screenshots"}}}},
        legacy={"pluginIds": ["old-copilot"], "tools": {"old-copilot.bal": "balance"}},
        context=lambda inp: "%s|%s|%s" % (inp.query, inp.kv is not None, inp + "!"),
        instructions=lambda s: "apps: %s" % s.kv.get("apps", []),
    )


class ManifestTest(unittest.TestCase):
    def setUp(self):
        self.host = FakeHost(pku_plugin())
        self.init = self.host.request(1, "initialize", {"protocolVersions": [1], "plugin": "copilot"})
        self.m = self.init["result"]["manifest"]

    def test_manifest_fields(self):
        m = self.m
        self.assertEqual((m["icon"], m["core"], m["maxAgentSteps"], m["cloud"]), ("card", True, 20, {"optional": True}))
        self.assertEqual(m["dataSources"], {"balance": {"title": "余额", "tool": "balance", "args": {}, "ttlMs": 600000}})
        self.assertEqual(m["preferences"]["screenshots"], {"title": "允许 AI 查看截图", "kind": "boolean", "schema": {"type": "boolean"}})
        self.assertEqual(m["preferences"]["mode"]["schema"], {"type": "string", "enum": ["fast", "slow"]})
        self.assertEqual(m["preferences"]["mode"]["options"][1], {"value": "slow", "label": "慢"})
        self.assertEqual(m["providers"]["ds"]["hasBalance"], True)
        self.assertEqual(m["providers"]["ds"]["hasSignIn"], False)
        self.assertEqual(m["providers"]["ds"]["efforts"], ["low", "high"])
        self.assertEqual(m["speech"]["asr"]["hasTranscribe"], True)
        self.assertEqual(m["speech"]["asr"]["credentialFrom"], "ds")
        self.assertEqual(m["ocr"], {"doc": {"name": "OCR", "credentialFrom": "ds"}})
        self.assertEqual(m["i18n"]["en"]["name"], "Copilot")
        self.assertEqual(m["legacy"]["pluginIds"], ["old-copilot"])
        self.assertTrue(m["dynamicInstructions"])

    def test_dynamic_description(self):
        balance = [r for r in self.host.registered if r.get("name") == "balance"][0]
        self.assertTrue(balance["dynamicDescription"])
        self.assertEqual(balance["description"], "余额；共 0 个应用")
        pay = [r for r in self.host.registered if r.get("name") == "pay"][0]
        self.assertFalse(pay["dynamicDescription"])
        self.host.kv["apps"] = json.dumps(["a", "b"])
        r = self.host.request(2, "tool.describe", {"tool": "balance"})
        self.assertEqual(r["result"], {"text": "余额；共 2 个应用"})
        self.assertEqual(self.host.request(3, "tool.describe", {"tool": "nope"})["error"]["code"], -32005)

    def test_preferences(self):
        r = self.host.request(2, "preference.get", {"name": "screenshots"})
        self.assertEqual(r["result"], {"value": False})
        r = self.host.request(3, "preference.set", {"name": "screenshots", "value": True})
        self.assertEqual(r["result"], {})
        self.assertEqual(self.host.request(4, "preference.get", {"name": "screenshots"})["result"], {"value": True})
        for mid, name, value in ((5, "screenshots", "yes"), (6, "apps", ["a", "b", "c"]), (7, "apps", [1]), (8, "mode", "medium")):
            r = self.host.request(mid, "preference.set", {"name": name, "value": value})
            self.assertEqual(r["error"]["code"], -32602, (name, value))
            self.assertIn("invalid value for copilot.%s" % name, r["error"]["message"])
        self.assertEqual(self.host.request(9, "preference.get", {"name": "nope"})["error"]["code"], -32005)

    def test_context_input_and_provider(self):
        r = self.host.request(2, "plugin.context", {"query": "hi"})
        self.assertEqual(r["result"], {"text": "hi|True|hi!"})
        r = self.host.request(3, "tool.call", {"tool": "pay", "args": {}, "context": {"actor": "agent"}})
        self.assertEqual(r["error"]["code"], -32003)
        self.assertIn("provider copilot.ds: " + hp.NOT_SUPPORTED, r["error"]["message"])


class AsyncTest(unittest.TestCase):
    """Every function a plugin hands the SDK may be an async def."""

    def test_async_functions(self):
        async def execute(args, ctx):
            return {"n": args["n"] + 1}

        async def decide(call):
            return {"verdict": "deny", "reason": "async"}

        async def stage(sc):
            sc["rawMessage"] = "async " + sc["rawMessage"]
            return sc

        async def describe(services):
            return "async description"

        async def get(c):
            return "async value"

        async def context(inp):
            return "async context for " + inp.query

        plugin = hp.define_plugin(
            id="asyncy", name="A", version="1", context=context, decide=decide, stages={"on_input": stage},
            tools={"t": hp.define_tool(description=describe, execute=execute, effect="read")},
            preferences={"p": hp.define_preference(title="p", kind="text", get=get, set=lambda c, v: None)})
        host = FakeHost(plugin)
        host.request(1, "initialize", {"protocolVersions": [1], "plugin": "asyncy"})
        self.assertEqual([r for r in host.registered if r.get("name") == "t"][0]["description"], "async description")
        self.assertEqual(host.request(2, "tool.call", {"tool": "t", "args": {"n": 1}})["result"]["value"], {"n": 2})
        self.assertEqual(host.request(3, "hook.decide", {"id": 0, "tool": "x", "args": {}, "context": {}})["result"],
                         {"verdict": "deny", "reason": "async"})
        r = host.request(4, "stage.run", {"id": 1, "context": {"rawMessage": "hi", "phase": "on_input"}})
        self.assertEqual(r["result"]["context"]["rawMessage"], "async hi")
        self.assertEqual(host.request(5, "tool.describe", {"tool": "t"})["result"], {"text": "async description"})
        self.assertEqual(host.request(6, "preference.get", {"name": "p"})["result"], {"value": "async value"})
        self.assertEqual(host.request(7, "plugin.context", {"query": "q"})["result"], {"text": "async context for q"})


class DefinitionsTest(unittest.TestCase):
    def test_define_preference_checks(self):
        ok = dict(title="t", get=lambda c: 1, set=lambda c, v: None)
        for bad in (dict(ok, kind="number"), dict(ok, kind="choice"), dict(ok, kind="text", get=3),
                    dict(ok, kind="text", input=5)):
            with self.assertRaises(ValueError):
                hp.define_preference(**bad)
        p = hp.define_preference(kind="text", input=lambda v: v.strip(), **ok)
        self.assertEqual(p.check("  x "), "x")
        self.assertIsInstance(p, hp.PluginPreferenceDef)

    def test_define_plugin_checks(self):
        pref = hp.define_preference(title="t", kind="text", get=lambda c: "", set=lambda c, v: None)
        tool = {"t": hp.define_tool(description="d", execute=None, effect="read")}
        for bad in (
            dict(preferences={"api_key": pref}), dict(preferences={"x": {"title": "t"}}),
            dict(data_sources={"d": {"title": "t", "tool": "nope", "ttlMs": 1}}),
            dict(data_sources={"d": {"title": "t", "tool": "t", "ttlMs": 0}}),
            dict(providers={"p": {"name": "x"}}), dict(requires=["teleport"]),
        ):
            with self.assertRaises(ValueError, msg=bad):
                hp.define_plugin(id="x", name="x", version="1", tools=tool, **bad)
        with self.assertRaises(ValueError):
            hp.define_tool(description=3, execute=None)

    def test_dynamic_and_marks(self):
        self.assertEqual(hp.resolve_dynamic("a", None), "a")
        self.assertEqual(hp.resolve_dynamic(lambda s: s + 1, 1), 2)
        self.assertEqual((hp.CONTEXT_MARK.deleted, hp.CONTEXT_MARK["corrected"], hp.CONTEXT_MARK.arrow), ("[已删除]", "[更正]", " → "))
        with self.assertRaises(TypeError):
            hp.CONTEXT_MARK["deleted"] = "x"
        ci = hp.ContextInput("q", kv="K", services="S")
        self.assertEqual((ci, ci.query, ci.kv, ci.services), ("q", "q", "K", "S"))
        self.assertEqual(hp.SettingContext(kv=1, services=2).kv, 1)

    def test_types_load(self):
        names = ["ToolEffect", "Actor", "Capability", "SettingValue", "Dynamic", "TurnInfo", "ToolAssessment",
                 "DataSourceDef", "PluginTranslation", "PluginLegacy", "ModelPricing", "ProviderModel",
                 "ProviderBalance", "ProviderAccount", "ProviderAuth", "ProviderConfig", "ProviderDef",
                 "SpeechConfig", "SpeechAudio", "SpeechStreamHandlers", "SpeechStream", "SpeechProviderDef",
                 "OcrDocument", "OcrProviderDef", "SettingContext", "ContextInput", "PluginPreferenceDef",
                 "PluginDef", "ToolDef", "ToolContext", "KV"]
        for n in names:
            self.assertTrue(hasattr(hp, n), n)
        stream = hp.SpeechStream(send=lambda b: None, finish=lambda: "t", cancel=lambda: None)
        self.assertEqual(stream.finish(), "t")
        self.assertEqual(hp.SpeechStreamHandlers(on_text=str).on_text("x"), "x")


class SpeechTest(unittest.TestCase):
    def test_clean_transcript(self):
        self.assertEqual(hp.clean_transcript("<|zh|><|NEUTRAL|> 你好，\n 世界  "), "你好， 世界")
        self.assertEqual(hp.clean_transcript(None), "")

    def test_speech_error_message(self):
        self.assertEqual(hp.speech_error_message(401, '{"error": {"message": "bad key"}}'), "401: bad key")
        self.assertEqual(hp.speech_error_message(400, '{"message": "no file"}'), "400: no file")
        self.assertEqual(hp.speech_error_message(429, '{"error": "slow down"}'), "429: slow down")
        self.assertEqual(hp.speech_error_message(502, "<html>bad gateway</html>"), "502: <html>bad gateway</html>")
        self.assertEqual(hp.speech_error_message(500, ""), "500: no message")
        self.assertTrue(hp.speech_error_message(500, "x" * 400).endswith("x…"))

    def test_open_ai_transcribe_against_a_loopback_server(self):
        seen = {}

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                seen.update(path=self.path, auth=self.headers.get("Authorization"), body=body,
                            ctype=self.headers.get("Content-Type"))
                if b"bad-model" in body:
                    self.send_response(400)
                    payload = b'{"error": {"message": "model not found"}}'
                else:
                    self.send_response(200)
                    payload = json.dumps({"text": "<|zh|> 你好 世界"}).encode()
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *a):
                pass

        srv = HTTPServer(("127.0.0.1", 0), Handler)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        base = "http://127.0.0.1:%d/v1/" % srv.server_address[1]
        audio = hp.SpeechAudio(file=b"RIFF....WAVE", uri="file:///a.wav", name="a.wav")
        text = hp.open_ai_transcribe(hp.SpeechConfig(base_url=base, model="sense", credential="k"), audio)
        self.assertEqual(text, "你好 世界")
        self.assertEqual(seen["path"], "/v1/audio/transcriptions")
        self.assertEqual(seen["auth"], "Bearer k")
        self.assertIn(b'name="file"; filename="a.wav"', seen["body"])
        self.assertIn(b"RIFF....WAVE", seen["body"])
        self.assertIn(b'name="model"\r\n\r\nsense\r\n', seen["body"])
        self.assertTrue(seen["ctype"].startswith("multipart/form-data; boundary="))
        with self.assertRaisesRegex(RuntimeError, "^400: model not found$"):
            hp.open_ai_transcribe(hp.SpeechConfig(base_url=base, model="bad-model"), audio)
        cancelled = threading.Event()
        cancelled.set()
        with self.assertRaises(RuntimeError):
            hp.open_ai_transcribe(hp.SpeechConfig(base_url=base, model="m"), audio, cancelled)


class ProviderCallsTest(unittest.TestCase):
    """provider.listModels and provider.balance: the provider's functions,
    fetching from a loopback server with the key the host passes."""

    def test_list_models_and_balance(self):
        class H(BaseHTTPRequestHandler):
            def do_GET(self):
                if self.headers.get("Authorization") != "Bearer sk-user-key":
                    self.send_response(401)
                    self.end_headers()
                    return
                body = {"/v1/models": {"data": [{"id": "a"}, {"id": "b"}]},
                        "/user/balance": {"is_available": True, "balance_infos": [
                            {"currency": "CNY", "total_balance": "110.00", "granted_balance": "10.00",
                             "topped_up_balance": "100.00"}]}}.get(self.path)
                self.send_response(200 if body else 404)
                self.end_headers()
                self.wfile.write(json.dumps(body or {}).encode())

            def log_message(self, *a):
                pass

        srv = HTTPServer(("127.0.0.1", 0), H)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.addCleanup(srv.server_close)
        self.addCleanup(srv.shutdown)
        base = "http://127.0.0.1:%d" % srv.server_address[1]

        import urllib.request

        def get(cfg, path):
            req = urllib.request.Request((cfg.base_url[:-3] if cfg.base_url.endswith("/v1") else cfg.base_url) + path,
                                         headers={"Authorization": "Bearer %s" % cfg.credential})
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.loads(r.read())

        def list_models(cfg):
            return [{"id": m["id"], "contextWindow": 64000} for m in get(cfg, "/v1/models")["data"]]

        def balance(cfg):
            b = get(cfg, "/user/balance")
            return {"available": b["is_available"], "balances": [
                {"currency": i["currency"], "total": i["total_balance"], "granted": i["granted_balance"],
                 "toppedUp": i["topped_up_balance"]} for i in b["balance_infos"]]}

        plugin = hp.define_plugin(
            id="prov", name="Prov", version="0.1.0", tools={},
            providers={
                "ex": hp.ProviderDef(name="Ex", description="e", auth="apiKey", default_base_url=base + "/v1",
                                     models=[{"id": "a"}], default_model="a", create_model=lambda cfg: None,
                                     list_models=list_models, balance=balance),
                "bare": hp.ProviderDef(name="Bare", description="b", auth="none", default_base_url=base,
                                       models=[], default_model="", create_model=lambda cfg: None),
            })
        host = FakeHost(plugin)
        init = host.request(1, "initialize", {"protocolVersions": [1], "plugin": "prov"})
        self.assertTrue(init["result"]["manifest"]["providers"]["ex"]["hasListModels"])
        config = {"baseURL": base + "/v1", "model": "a", "credential": "sk-user-key"}
        r = host.request(2, "provider.listModels", {"provider": "ex", "config": config})
        self.assertEqual(r["result"], {"models": [{"id": "a", "contextWindow": 64000}, {"id": "b", "contextWindow": 64000}]})
        r = host.request(3, "provider.balance", {"provider": "ex", "config": config})
        self.assertEqual(r["result"], {"account": {"available": True, "balances": [
            {"currency": "CNY", "total": 110.0, "granted": 10.0, "toppedUp": 100.0}]}})
        r = host.request(4, "provider.listModels", {"provider": "ex", "config": dict(config, credential="wrong")})
        self.assertIn("401", r["error"]["message"])
        self.assertEqual(host.request(5, "provider.balance", {"provider": "bare", "config": config})["error"]["code"], -32005)
        self.assertEqual(host.request(6, "provider.balance", {"provider": "nope", "config": config})["error"]["code"], -32005)


if __name__ == "__main__":
    unittest.main()
