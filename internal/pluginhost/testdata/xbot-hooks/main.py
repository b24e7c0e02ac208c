#!/usr/bin/env python3
"""An xbot stdio plugin written from xbot's protocol: its PostToolUse hook
matches python_* (the names it registers) and it asks for every hook
event xbot defines. Each hook request is appended to $HOME/hooks.jsonl
before it is answered."""
import json
import os
import sys

EVENTS = ["UserPromptSubmit", "AgentStop", "SessionStart", "SessionEnd",
          "SubAgentStart", "SubAgentStop", "PreCompact", "PostCompact",
          "CronFired", "WebhookReceived", "PostToolUseFailure", "NoSuchEvent"]


def respond(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def activate():
    hooks = [{"event": "PostToolUse", "matcher": "python_*"},
             {"event": "PreToolUse", "matcher": "python_*"}]
    hooks += [{"event": e, "matcher": ""} for e in EVENTS]
    return {"tools": [
        {"name": "python_echo", "description": "Echoes its text.",
         "parameters": [{"name": "text", "type": "string", "description": "what to echo", "required": True}]},
        {"name": "python_forbidden", "description": "Never runs: the plugin's own PreToolUse hook denies it.", "parameters": []},
        {"name": "python_webonly", "description": "Runs only in the web channel.", "parameters": [], "channels": ["web"]},
    ], "hooks": hooks}


def hook(params):
    with open(os.path.join(os.environ["HOME"], "hooks.jsonl"), "a") as f:
        f.write(json.dumps(params) + "\n")
    if params.get("event") == "PreToolUse" and params.get("toolName") == "python_forbidden":
        return {"hookResult": {"decision": "deny", "message": "python_forbidden is denied by its own plugin"}}
    return {"hookResult": {"decision": "allow"}}


for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    method, params = req.get("method"), req.get("params") or {}
    if method == "activate":
        respond(activate())
    elif method == "execute_tool":
        args = json.loads(params.get("input") or "{}")
        respond({"result": "echo: " + str(args.get("text"))})
    elif method == "hook":
        respond(hook(params))
    elif method == "deactivate":
        respond({})
    else:
        respond({"error": "unknown method " + str(method)})
