"""The PKU harness plugin model (seed 001) in Python's idiom, for the
Hearth plugin SDK: hearth_plugin re-exports every name here, so plugins
import them from hearth_plugin. Functions are snake_case, dict shapes are
TypedDicts with the wire's keys (docs/pku-wire.md), what carries functions
is a dataclass. Standard library only.
"""

import json
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Literal, Optional, TypedDict, TypeVar, Union

__all__ = [
    "ToolEffect", "Actor", "Capability", "CAPABILITIES", "SettingValue", "Dynamic", "NOT_SUPPORTED",
    "resolve_dynamic", "CONTEXT_MARK", "TurnInfo", "ToolAssessment", "DataSourceDef", "PluginTranslation",
    "PluginLegacy", "ModelPricing", "ProviderModel", "ProviderBalance", "ProviderAccount", "ProviderAuth",
    "ProviderConfig", "ProviderDef", "SpeechConfig", "SpeechAudio", "SpeechStreamHandlers", "SpeechStream",
    "SpeechProviderDef", "OcrDocument", "OcrProviderDef", "SettingContext", "ContextInput", "PREFERENCE_KINDS",
    "PluginPreferenceDef", "define_preference", "clean_transcript", "speech_error_message", "open_ai_transcribe",
]

# The PKU harness plugin model (seed 001), in Python's idiom: the names of
# its TypeScript SDK in snake_case for functions, the types as TypedDicts
# (plain dicts a plugin writes, with the wire's keys) and dataclasses (what
# carries functions). docs/pku-wire.md says what travels.

ToolEffect = Literal["read", "write", "money", "public"]
Actor = Literal["user", "agent", "scheduler"]
Capability = Literal["network", "campus-network", "campus-session", "notifications", "background",
                     "shell", "filesystem", "cloud", "phone-control", "ongoing"]
CAPABILITIES = ("network", "campus-network", "campus-session", "notifications", "background",
                "shell", "filesystem", "cloud", "phone-control", "ongoing")
SettingValue = Union[str, int, float, bool, List[str]]
T = TypeVar("T")
# Dynamic is a value, or a function of the host's services that returns it.
Dynamic = Union[T, Callable[..., T]]

NOT_SUPPORTED = "not supported by this host yet"


def resolve_dynamic(value, services):
    """A Dynamic value now: a function is called with the host's services."""
    return value(services) if callable(value) else value


class _Marks(dict):
    """A read-only dict whose items are also attributes."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key)

    def _readonly(self, *a, **k):
        raise TypeError("CONTEXT_MARK is read-only")

    __setitem__ = __delitem__ = update = pop = popitem = clear = setdefault = _readonly


# The marks of the context lines that take back a fact shown before:
# "- [已删除] old" and "- [更正] old → new" (so a fact must not hold the arrow).
CONTEXT_MARK = _Marks(deleted="[已删除]", corrected="[更正]", arrow=" → ")


class TurnInfo(TypedDict, total=False):
    """The turn a call belongs to (ctx["turn"])."""
    sessionId: str
    tainted: bool  # an untrusted tool was called earlier in the turn
    userAsked: bool
    acceptsImages: bool


class _Target(TypedDict, total=False):
    label: str
    context: str


class ToolAssessment(TypedDict, total=False):
    """What resolve_effect answers when it names a target: the effect and
    what the call acts on, the title of the approval prompt."""
    effect: str
    target: _Target


class DataSourceDef(TypedDict, total=False):
    """A read tool of this plugin for widgets and scheduled checks, its
    arguments and how long (ms, > 0) a result may be reused."""
    title: str
    tool: str
    args: Dict[str, Any]
    ttlMs: int


class PluginTranslation(TypedDict, total=False):
    """The English strings of the manifest (i18n={"en": ...}); the model
    always reads the original ones."""
    name: str
    description: str
    tools: Dict[str, Dict[str, str]]
    widgets: Dict[str, Dict[str, str]]
    screens: Dict[str, Dict[str, str]]
    settings: Dict[str, Dict[str, str]]
    preferences: Dict[str, Dict[str, Any]]
    commands: Dict[str, Dict[str, Any]]
    providers: Dict[str, Dict[str, Any]]
    speech: Dict[str, Dict[str, Any]]
    dataSources: Dict[str, Dict[str, str]]
    scopes: Dict[str, str]


class PluginLegacy(TypedDict, total=False):
    """The ids this plugin replaces, so that saved data keeps working."""
    pluginIds: List[str]
    tools: Dict[str, str]  # old "<plugin>.<tool>" -> a tool name here
    widgets: Dict[str, str]


class ModelPricing(TypedDict, total=False):
    """A model's price per million tokens."""
    currency: str  # CNY or USD
    inputCacheHit: float
    inputCacheMiss: float
    output: float
    peak: Dict[str, Any]
    source: str


class ProviderModel(TypedDict, total=False):
    """One model of a provider (or of a speech provider: id, name, description)."""
    id: str
    name: str
    description: str
    contextWindow: int
    inputModalities: List[str]
    pricing: ModelPricing


class ProviderBalance(TypedDict, total=False):
    currency: str
    total: float
    granted: float
    toppedUp: float


class ProviderAccount(TypedDict):
    """What a provider's balance function answers."""
    available: bool
    balances: List[ProviderBalance]


ProviderAuth = Literal["apiKey", "account", "none"]


@dataclass
class ProviderConfig:
    """What a provider's functions receive: the address, model and key."""
    base_url: str
    model: str
    credential: Optional[str] = None
    fetch: Optional[Callable[..., Any]] = None


@dataclass
class ProviderDef:
    """A model provider. Hearth loads it and lists it, but does not call
    its functions yet (NOT_SUPPORTED)."""
    name: str
    description: str
    auth: str
    default_base_url: str
    models: List[ProviderModel]
    default_model: str
    create_model: Callable[[ProviderConfig], Any]
    editable_base_url: bool = False
    efforts: Optional[List[str]] = None
    credential_hint: str = ""
    list_models: Optional[Callable[[ProviderConfig], List[ProviderModel]]] = None
    sign_in: Optional[Callable[[], str]] = None
    balance: Optional[Callable[[ProviderConfig], ProviderAccount]] = None


@dataclass
class SpeechConfig:
    """What a speech provider's functions receive."""
    base_url: str
    model: str
    credential: Optional[str] = None
    fetch: Optional[Callable[..., Any]] = None
    web_socket: Optional[Callable[[str, Dict[str, str]], Any]] = None


@dataclass
class SpeechAudio:
    """A recording to transcribe: file is its bytes (16 kHz mono WAV
    unless mime_type says otherwise)."""
    file: bytes
    uri: str
    name: str
    mime_type: str = "audio/wav"
    duration_ms: Optional[int] = None


@dataclass
class SpeechStreamHandlers:
    """on_text(text) receives the whole transcript so far, each time."""
    on_text: Callable[[str], None]


@dataclass
class SpeechStream:
    """A live transcription: send 100 ms of base64 PCM, finish, or cancel."""
    send: Callable[[str], None]
    finish: Callable[[], str]
    cancel: Callable[[], None]


@dataclass
class SpeechProviderDef:
    """A speech-to-text service (id <plugin>.<key>); loaded, not run yet."""
    name: str
    description: str
    default_base_url: str
    models: List[ProviderModel]
    default_model: str
    editable_base_url: bool = False
    credential_hint: str = ""
    key_url: str = ""
    credential_from: str = ""
    transcribe: Optional[Callable[..., str]] = None
    stream: Optional[Callable[[SpeechConfig, SpeechStreamHandlers], SpeechStream]] = None


@dataclass
class OcrDocument:
    """A document to recognize (a scanned PDF the user attached)."""
    file: bytes
    uri: str
    name: str
    mime_type: str = "application/pdf"


@dataclass
class OcrProviderDef:
    """Recognizes documents with the key of this plugin's provider
    credential_from; answers Markdown with a "## Page n" heading a page."""
    name: str
    credential_from: str
    recognize: Callable[..., str]


@dataclass
class SettingContext:
    """What a preference's get and set may use."""
    kv: Any
    services: Any


class ContextInput(str):
    """What PluginDef.context receives: the user's latest message (it is
    that str, so context(query) functions keep working), with .query, .kv
    and .services."""

    def __new__(cls, query, kv=None, services=None):
        s = super().__new__(cls, query)
        s.query, s.kv, s.services = str(query), kv, services
        return s


PREFERENCE_KINDS = ("choice", "boolean", "text", "list")


@dataclass
class PluginPreferenceDef:
    """One of the plugin's own settings, listed by Hearth as <plugin>.<name>
    and read and changed by the user and the assistant alike; not secret.
    input is a JSON Schema (the default follows kind) or a function that
    returns the checked value or raises ValueError."""
    title: str
    kind: str
    get: Callable[[SettingContext], Any]
    set: Callable[[SettingContext, Any], None]
    input: Any = None
    description: str = ""
    options: Optional[List[Dict[str, str]]] = None
    screen: str = ""

    def schema(self):
        """The JSON Schema of input for the wire."""
        if isinstance(self.input, dict):
            return self.input
        if self.kind == "choice":
            return {"type": "string", "enum": [o["value"] for o in self.options or []]}
        if self.kind == "list":
            return {"type": "array", "items": {"type": "string"}}
        return {"type": "boolean" if self.kind == "boolean" else "string"}

    def check(self, value):
        """The value set would store, or ValueError."""
        if callable(self.input):
            return self.input(value)
        _check_schema(self.schema(), value, "value")
        return value


def define_preference(title, kind, get, set, input=None, description="", options=None, screen=""):
    """Describe a preference (PluginDef.preferences)."""
    if kind not in PREFERENCE_KINDS:
        raise ValueError("preference %r: kind %r must be one of %s" % (title, kind, PREFERENCE_KINDS))
    if not callable(get) or not callable(set):
        raise ValueError("preference %r: get and set must be functions" % title)
    if kind == "choice" and not options:
        raise ValueError("preference %r: a choice needs options" % title)
    if input is not None and not (callable(input) or isinstance(input, dict)):
        raise ValueError("preference %r: input must be a JSON Schema or a function" % title)
    return PluginPreferenceDef(title, kind, get, set, input, description, list(options or []) or None, screen)


_JSON_TYPES = dict((("string", (str,)), ("boolean", (bool,)), ("array", (list,)), ("object", (dict,)),
                    ("integer", (int,)), ("number", (int, float))))


def _check_schema(schema, value, path):
    """Checks value against the JSON Schema keywords preferences use."""
    want = schema.get("type")
    types = _JSON_TYPES.get(want)
    if types and (not isinstance(value, types) or (want in ("integer", "number") and isinstance(value, bool))):
        raise ValueError("%s: want %s, got %s" % (path, want, json.dumps(value, ensure_ascii=False)))
    if "enum" in schema and value not in schema["enum"]:
        raise ValueError("%s: %s is not one of %s" % (path, json.dumps(value, ensure_ascii=False), schema["enum"]))
    if isinstance(value, str) and len(value) > schema.get("maxLength", len(value)):
        raise ValueError("%s: longer than %d" % (path, schema["maxLength"]))
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value < schema.get("minimum", value) or value > schema.get("maximum", value):
            raise ValueError("%s: %s is out of range" % (path, value))
    if isinstance(value, list):
        if len(value) > schema.get("maxItems", len(value)):
            raise ValueError("%s: more than %d items" % (path, schema["maxItems"]))
        for i, v in enumerate(value):
            _check_schema(schema.get("items") or {}, v, "%s[%d]" % (path, i))


def clean_transcript(text):
    """Removes control tokens such as <|zh|> and extra white space."""
    return re.sub(r"\s+", " ", re.sub(r"<\|[^|>]*\|>", " ", str(text or ""))).strip()


def speech_error_message(status, body):
    """An error response as "<status>: <message>", the message taken from
    JSON (error.message, message, error, msg) when there is one."""
    message = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
    try:
        j = json.loads(body) if isinstance(body, (str, bytes)) else body
    except ValueError:
        j = None
    if isinstance(j, dict):
        err = j.get("error")
        for m in ((err or {}).get("message") if isinstance(err, dict) else None, j.get("message"), err, j.get("msg")):
            if isinstance(m, str) and m:
                message = m
                break
    message = str(message or "").strip() or "no message"
    return "%s: %s" % (status, message[:300] + "…" if len(message) > 300 else message)


def open_ai_transcribe(config, audio, signal=None, timeout=120):
    """POST {base_url}/audio/transcriptions with the file and the model as
    multipart (OpenAI's format, which most services share) and return the
    cleaned text. signal, a threading.Event, set before the request
    starts, cancels it."""
    import urllib.error
    import urllib.request
    import uuid
    if signal is not None and signal.is_set():
        raise RuntimeError("transcription cancelled")
    boundary = "hearth-" + uuid.uuid4().hex
    parts = []
    for field, filename, ctype, data in (("file", audio.name, audio.mime_type, audio.file),
                                         ("model", None, None, config.model.encode("utf-8"))):
        head = 'Content-Disposition: form-data; name="%s"' % field
        if filename is not None:
            head += '; filename="%s"\r\nContent-Type: %s' % (filename.replace('"', "_"), ctype)
        parts.append(b"--" + boundary.encode() + b"\r\n" + head.encode("utf-8") + b"\r\n\r\n" + data + b"\r\n")
    body = b"".join(parts) + b"--" + boundary.encode() + b"--\r\n"
    req = urllib.request.Request(config.base_url.rstrip("/") + "/audio/transcriptions", data=body, method="POST",
                                 headers={"Content-Type": "multipart/form-data; boundary=" + boundary})
    if config.credential:
        req.add_header("Authorization", "Bearer " + config.credential)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as res:
            text = res.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as e:
        raise RuntimeError(speech_error_message(e.code, e.read().decode("utf-8", "replace"))) from None
    try:
        text = json.loads(text).get("text", "")
    except (ValueError, AttributeError):
        pass
    return clean_transcript(text)
