#!/usr/bin/env python3
"""A channel plugin of our own shaped like xbot's web UI examples: on
channel_config it declares a sparkline, a table with an action column, a
badge, a progress, a metric and three widgets Hearth must refuse (free-form
code, an html component, an unknown type).
A web_ui_action "retry" on the jobs table marks job j2 queued, declares the
set again and answers {"result": ...}; "slow" never answers."""
import json
import sys

jobs = [{"id": "j1", "state": "success"}, {"id": "j2", "state": "failed"}]


def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def declare():
    out({"type": "web_ui", "ui": [
        {"widget_id": "trend", "title": "Trend", "slot": "right_sidebar", "refresh": "10s",
         "component": {"type": "sparkline", "props": {"data": [3, 1, 4, 1, 5], "color": "#22c55e"}}},
        {"widget_id": "jobs", "title": "Jobs <b>", "slot": "right_sidebar",
         "component": {"type": "table", "props": {
             "columns": ["id", "state", "action"],
             "rows": [{"id": j["id"], "state": {"text": j["state"], "tone": j["state"]},
                       "action": "retry" if j["state"] == "failed" else ""} for j in jobs]}}},
        {"widget_id": "status", "slot": "title_bar_right",
         "component": {"type": "badge", "props": {"text": "up", "tone": "success", "pulse": True, "action": "toggle"}}},
        {"widget_id": "disk", "title": "Disk", "component": {"type": "progress", "props": {"value": 42, "label": "used", "tone": "warning"}}},
        {"widget_id": "load", "component": {"type": "metric", "props": {"label": "Load", "value": 0.5, "delta": "-0.1"}}},
        {"widget_id": "tsx", "code": "export default () => <b>hi</b>"},
        {"widget_id": "evil", "component": {"type": "html", "props": {"html": "<script>alert(1)</script>"}}},
        {"widget_id": "odd", "component": {"type": "gauge", "props": {}}},
    ]})


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        if msg["method"] != "web_ui_action":
            out({"id": msg["id"], "error": "Unknown method"})
            continue
        p = msg.get("params") or {}
        if p.get("action") == "slow":
            continue
        if p.get("widgetId") == "jobs" and p.get("action") == "retry":
            row = json.loads(p.get("data") or "{}")
            for j in jobs:
                if j["id"] == row.get("id"):
                    j["state"] = "running"
            declare()
            out({"id": msg["id"], "result": {"result": "retrying " + row.get("id", "?") + " in " + p.get("chatId", "")}})
        elif p.get("widgetId") == "status" and p.get("action") == "toggle":
            out({"id": msg["id"], "result": "toggled"})
        else:
            out({"id": msg["id"], "error": "unknown action"})
    elif msg.get("type") == "channel_config":
        declare()
