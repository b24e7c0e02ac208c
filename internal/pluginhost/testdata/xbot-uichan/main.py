#!/usr/bin/env python3
"""An xbot channel plugin that ignores activate (it has no id) and, once
configured, declares web_ui components, as xbot's web UI examples do."""
import json
import sys

for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    if "id" in msg and "method" in msg:
        sys.stdout.write(json.dumps({"id": msg["id"], "error": "Unknown method"}) + "\n")
    elif msg.get("type") == "channel_config":
        sys.stdout.write(json.dumps({"type": "web_ui", "ui": [{"widget_id": "w", "slot": "right_sidebar",
                                     "component": {"type": "badge", "props": {"text": "ok"}}}]}) + "\n")
        sys.stdout.write(json.dumps({"type": "channel_tools", "tools": [{"name": "ui_ping", "description": "Pings.", "parameters": []}]}) + "\n")
    sys.stdout.flush()
