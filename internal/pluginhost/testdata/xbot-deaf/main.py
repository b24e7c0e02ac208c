#!/usr/bin/env python3
"""An xbot stdio plugin with a UserPromptSubmit hook. For the prompt
"fail" it answers an error carrying a detail the person must not read,
for "quiet" a deny without a message, for "deaf" it allows the message
and then never reads its input again; anything else is allowed."""
import json
import sys
import time


def respond(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    if not line.strip():
        continue
    req = json.loads(line)
    method, params = req.get("method"), req.get("params") or {}
    if method == "activate":
        respond({"tools": [], "hooks": [{"event": "UserPromptSubmit", "matcher": ""}]})
    elif method == "hook":
        prompt = params.get("toolInput") or ""
        if prompt == "fail":
            respond({"error": "database password hunter2 rejected"})
        elif prompt == "quiet":
            respond({"hookResult": {"decision": "deny"}})
        else:
            respond({"hookResult": {"decision": "allow"}})
            if prompt == "deaf":
                while True:
                    time.sleep(3600)
    elif method == "deactivate":
        respond({})
    else:
        respond({"error": "unknown method " + str(method)})
