#!/usr/bin/env python3
"""An xbot stdio plugin, written from xbot's protocol: one JSON request per
line on stdin, one JSON response per line on stdout, no ids."""
import json
import os
import sys
import time


def respond(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def handle_activate(params):
    return {
        "tools": [
            {
                "name": "python_greet",
                "description": "Greet someone by name.",
                "parameters": [{"name": "name", "type": "string", "description": "The person to greet", "required": True}],
            },
            {
                "name": "slow",
                "description": "Takes a while.",
                "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}, "required": ["seconds"]},
            },
            {"name": "dangerous_delete", "description": "Deletes everything.", "parameters": []},
            {"name": "crash", "description": "Exits.", "parameters": []},
            {"name": "big", "description": "Answers with a line over xbot's 1 MiB limit.", "parameters": []},
        ],
        "hooks": [{"event": "PreToolUse", "matcher": "*danger*"}],
        "enrichers": [{"name": "weather_context"}],
    }


def handle_execute_tool(params):
    name = params.get("toolName")
    args = json.loads(params.get("input") or "{}")
    if name == "python_greet":
        return {"result": json.dumps({"english": "Hello, %s!" % args.get("name"), "chinese": "你好，%s！" % args.get("name")}, ensure_ascii=False)}
    if name == "slow":
        time.sleep(float(args.get("seconds", 0)))
        return {"result": "slept"}
    if name == "dangerous_delete":
        return {"result": "deleted everything"}
    if name == "crash":
        os._exit(7)
    if name == "big":
        return {"result": "z" * (2 << 20)}
    return {"error": "Unknown tool: %s" % name}


def handle_hook(params):
    if params.get("event") == "PreToolUse" and "danger" in params.get("toolName", ""):
        return {"hookResult": {"decision": "deny", "message": "python-hello blocks dangerous tools"}}
    return {"hookResult": {"decision": "allow"}}


def main():
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        method, params = req.get("method"), req.get("params") or {}
        if method == "activate":
            respond(handle_activate(params))
        elif method == "execute_tool":
            respond(handle_execute_tool(params))
        elif method == "hook":
            respond(handle_hook(params))
        elif method == "enrich":
            respond({"result": "The user lives in Beijing; it is sunny today."})
        elif method == "deactivate":
            respond({})
            return
        else:
            respond({"error": "unknown method %s" % method})


if __name__ == "__main__":
    main()
