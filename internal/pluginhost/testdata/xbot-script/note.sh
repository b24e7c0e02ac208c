#!/bin/bash
# An xbot script plugin: its output is a widget's content.
set -euo pipefail
if [ -z "${XBOT_TOOL_NAME:-}" ]; then
    echo "ok|idle in $(basename "$XBOT_WORK_DIR")"
    exit 0
fi
path=$(printf '%s' "$XBOT_TOOL_INPUT" | python3 -c 'import sys, json; print(json.load(sys.stdin).get("path", ""))')
echo "md|"
echo "$XBOT_HOOK_EVENT $XBOT_TOOL_NAME wrote $path for widget $XBOT_WIDGET_ID: $XBOT_TOOL_OUTPUT"
