#!/usr/bin/env python3
"""A Hearth plugin in Python: one read tool, one stage handler."""
# Hearth puts hearth_plugin on the PYTHONPATH of its child plugins.
from hearth_plugin import ToolError, define_plugin, define_tool, serve

WEATHER = {"北京": "晴", "上海": "多云"}


def query(args, ctx):
    city = args["city"]
    if city not in WEATHER:
        raise ToolError("不支持的城市: %s" % city)
    return {"city": city, "weather": WEATHER[city], "asked_by": ctx.actor}


def wait(args, ctx):
    # Returns as soon as Hearth cancels the call.
    ctx.cancelled.wait(60)
    return "cancelled" if ctx.cancelled.is_set() else "done"


def pre_action(ctx):
    ctx.setdefault("contextMsgs", []).append({"role": "system", "content": "天气数据来自 pyweather 插件。"})
    return ctx


serve(define_plugin(
    id="pyweather", name="天气（Python）", version="1.0.0",
    tools={
        "query": define_tool(
            title="查询天气", description="Get the weather of a Chinese city.", effect="read",
            input={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
            execute=query),
        "wait": define_tool(description="Waits until cancelled.", effect="read", execute=wait, timeout_ms=200),
    },
    stages={"pre_action": pre_action},
))
