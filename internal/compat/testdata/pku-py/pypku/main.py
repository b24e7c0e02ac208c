"""A test plugin that uses every name of the PKU harness plugin model
(seed 001) through the Python SDK; internal/compat/pku_py_test.go runs it
through Hearth, one row per name."""

import threading
from typing import List

from hearth_plugin import (
    CONTEXT_MARK, KV, Actor, Capability, ContextInput, DataSourceDef, Dynamic, ModelPricing, OcrDocument,
    OcrProviderDef, PluginDef, PluginLegacy, PluginPreferenceDef, PluginTranslation, ProviderAccount, ProviderAuth,
    ProviderBalance, ProviderConfig, ProviderDef, ProviderModel, SettingContext, SettingValue, SpeechAudio,
    SpeechConfig, SpeechProviderDef, SpeechStream, SpeechStreamHandlers, ToolAssessment, ToolContext, ToolDef,
    ToolEffect, TurnInfo, clean_transcript, define_plugin, define_preference, define_tool, open_ai_transcribe,
    resolve_dynamic, serve, speech_error_message,
)

NEEDS: List[Capability] = ["network"]
READ: ToolEffect = "read"
AUTH: ProviderAuth = "apiKey"


def load_apps(kv: KV) -> List[str]:
    return kv.get("apps", [])


def get_vision(c: SettingContext) -> SettingValue:
    return c.kv.get("vision", False)


def set_vision(c: SettingContext, value: SettingValue) -> None:
    c.kv.set("vision", value)


VISION: PluginPreferenceDef = define_preference(
    title="允许 AI 查看截图", description="用于不向助手显示内容的 App。", kind="boolean",
    get=get_vision, set=set_vision)
APPS = define_preference(
    title="允许的应用", kind="list", input={"type": "array", "items": {"type": "string"}, "maxItems": 3},
    get=lambda c: load_apps(c.kv), set=lambda c, v: c.kv.set("apps", v))

DESCRIBE: Dynamic[str] = lambda services: "列出允许的应用（现在 %d 个）。" % len(load_apps(services.kv))


def apps(args, ctx: ToolContext):
    turn: TurnInfo = ctx.get("turn") or {}
    actor: Actor = ctx.actor
    return {"apps": load_apps(ctx.kv), "vision": ctx.kv.get("vision", False), "actor": actor,
            "tainted": turn.get("tainted", False)}


def assess(args, services) -> ToolAssessment:
    return {"effect": "write", "target": {"label": "打开 %s" % args.get("app", "?")}}


def use_provider(args, ctx: ToolContext):
    return ctx.provider("example")


def helpers(args, ctx):
    """The pure helpers, run inside the plugin."""
    return {
        "clean": clean_transcript("<|zh|> 你好  世界"),
        "error": speech_error_message(401, '{"error": {"message": "bad key"}}'),
        "dynamic": resolve_dynamic(DESCRIBE, ctx.services),
        "mark": "- %s old%snew" % (CONTEXT_MARK.corrected, CONTEXT_MARK.arrow),
        "deleted": CONTEXT_MARK.deleted,
        # What Hearth does not call yet, called here: the types work.
        "account": balance(ProviderConfig(base_url="https://api.example.com/v1", model="example-large"))["balances"][0]["total"],
        "stream": _stream_once(),
        "ocr": recognize(None, OcrDocument(file=b"%PDF", uri="file:///s.pdf", name="s.pdf")),
        "audio": _AUDIO.mime_type,
        "legacy": LEGACY["tools"]["old-pypku.list"],
    }


def _stream_once():
    texts = []
    s = stream(SpeechConfig(base_url="wss://api.example.com", model="asr-1"), SpeechStreamHandlers(on_text=texts.append))
    s.send("AAA=")
    s.send("BBB=")
    return s.finish()


def context(inp: ContextInput) -> str:
    return "允许的应用：%s（问：%s）" % ("、".join(load_apps(inp.kv)) or "无", inp.query)


PRICING: ModelPricing = {"currency": "CNY", "inputCacheHit": 0.2, "inputCacheMiss": 2, "output": 8}
MODELS: List[ProviderModel] = [{"id": "example-large", "name": "Example Large", "contextWindow": 128000,
                                "inputModalities": ["text"], "pricing": PRICING}]


def balance(config: ProviderConfig) -> ProviderAccount:
    b: ProviderBalance = {"currency": "CNY", "total": 1.5}
    return {"available": True, "balances": [b]}


def stream(config: SpeechConfig, handlers: SpeechStreamHandlers) -> SpeechStream:
    parts = []
    return SpeechStream(send=parts.append, finish=lambda: "".join(parts), cancel=parts.clear)


def recognize(config, doc: OcrDocument, signal: threading.Event = None) -> str:
    return "## Page 1\n" + doc.name


SOURCES = {"apps": DataSourceDef(title="应用", tool="apps", args={}, ttlMs=60000)}
EN: PluginTranslation = {"name": "PKU model (Python)", "tools": {"apps": {"title": "Apps"}},
                         "preferences": {"screenshots": {"title": "Let the AI see screenshots"}},
                         "dataSources": {"apps": {"title": "Apps"}}}
LEGACY: PluginLegacy = {"pluginIds": ["old-pypku"], "tools": {"old-pypku.list": "apps"}}

TOOLS = {
    "apps": define_tool(title="应用", description=DESCRIBE, effect=READ, execute=apps),
    "open": define_tool(title="打开应用", description="打开一个应用。", effect="write", resolve_effect=assess,
                        execute=lambda a, c: "opened",
                        input={"type": "object", "properties": {"app": {"type": "string"}}}),
    "provider": define_tool(title="服务商", description="用本插件的服务商。", effect=READ, execute=use_provider),
    "helpers": define_tool(title="辅助", description="语音与上下文的辅助函数。", effect=READ, execute=helpers),
}
TOOL: ToolDef = TOOLS["apps"]

PLUGIN: PluginDef = define_plugin(
    id="pypku", name="PKU 模型（Python）", description="PKU 插件模型的每个名字。", version="1.0.0",
    icon="card", requires=NEEDS, scopes=["example.com"], max_agent_steps=30,
    instructions=lambda services: "调用 pypku__apps 查看允许的应用。", context=context,
    tools=TOOLS, preferences={"screenshots": VISION, "apps": APPS}, data_sources=SOURCES,
    providers={"example": ProviderDef(name="Example", description="OpenAI 兼容", auth=AUTH,
                                      default_base_url="https://api.example.com/v1", models=MODELS,
                                      default_model="example-large", create_model=lambda config: None,
                                      balance=balance)},
    speech={"asr": SpeechProviderDef(name="语音", description="转写", default_base_url="https://api.example.com/v1",
                                     models=[{"id": "asr-1", "name": "ASR"}], default_model="asr-1",
                                     credential_hint="在 example.com 创建的 API Key", key_url="https://example.com/keys",
                                     credential_from="example", transcribe=open_ai_transcribe, stream=stream)},
    ocr={"scan": OcrProviderDef(name="扫描识别", credential_from="example", recognize=recognize)},
    i18n={"en": EN}, legacy=LEGACY,
)

# Types the plugin builds but Hearth does not call yet.
_AUDIO = SpeechAudio(file=b"", uri="file:///a.wav", name="a.wav")

serve(PLUGIN)
