"""A test plugin with a preference of each kind, kept in memory: the
target of FuzzPythonPreferenceSet, which sends it any JSON value."""

from hearth_plugin import define_plugin, define_preference, serve

VALUES = {}


def pref(name, kind, **kw):
    return define_preference(title=name, kind=kind, get=lambda c: VALUES.get(name),
                             set=lambda c, v: VALUES.__setitem__(name, v), **kw)


def strip(value):
    if not isinstance(value, str) or not value.strip():
        raise ValueError("want a non-empty text")
    return value.strip()


serve(define_plugin(
    id="pyprefs", name="设置项（Python）", version="1.0.0", tools={},
    preferences={
        "flag": pref("flag", "boolean"),
        "mode": pref("mode", "choice", options=[{"value": "fast", "label": "快"}, {"value": "slow", "label": "慢"}]),
        "note": pref("note", "text", input={"type": "string", "maxLength": 20}),
        "apps": pref("apps", "list", input={"type": "array", "items": {"type": "string"}, "maxItems": 3}),
        "name": pref("name", "text", input=strip),
    },
))
