#!/usr/bin/env python3
"""An xbot channel plugin written from xbot's channel protocol: it answers
activate with its channel_provider, starts a loopback HTTP server on
channel_config (its port goes to $HOME/port), relays POST /message to the
host with send_inbound, keeps what channel_send delivers, and declares a
channel tool with channel_tools.

GET /history?n=N waits until N answers were delivered and lists them."""
import json
import os
import sys
import threading
from http.server import HTTPServer, BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlparse

lock = threading.Lock()
delivered = threading.Condition()
answers = []
config = {}
next_id = 0


def write(obj):
    with lock:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()


def request(method, params):
    global next_id
    with lock:
        next_id += 1
        rid = "plugin-%d" % next_id
    write({"id": rid, "method": method, "params": params})


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        q = parse_qs(urlparse(self.path).query)
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        request("send_inbound", {"channel": "pyecho", "chat_id": q.get("chat", ["c1"])[0],
                                 "content": body, "sender_id": q.get("user", ["alice"])[0],
                                 "sender_name": "Alice", "chat_type": "p2p"})
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"sent\n")

    def do_GET(self):
        q = parse_qs(urlparse(self.path).query)
        n = int(q.get("n", ["1"])[0])
        with delivered:
            delivered.wait_for(lambda: len(answers) >= n)
            body = json.dumps({"answers": answers, "config": config}).encode()
        self.send_response(200)
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def on_config(meta):
    config.update(json.loads(meta.get("config", "{}")))
    srv = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    write({"type": "channel_tools", "tools": [
        {"name": "pyecho_shout", "description": "Shouts a text in the echo channel.",
         "parameters": [{"name": "text", "type": "string", "description": "what to shout", "required": True}],
         "channels": ["pyecho"]}]})
    write({"type": "channel_prompt", "system_parts": {"style": "Answer the echo channel briefly."}})
    tmp = os.path.join(os.environ["HOME"], "port.tmp")
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, os.path.join(os.environ["HOME"], "port"))


def on_rpc(msg):
    method, params = msg["method"], msg.get("params") or {}
    if method == "channel_send":
        with delivered:
            answers.append({"chat_id": params.get("chat_id"), "content": params.get("content"),
                            "final": (params.get("metadata") or {}).get("is_final")})
            delivered.notify_all()
        write({"id": msg["id"], "result": "ok"})
    elif method == "execute_tool":
        args = json.loads(params.get("input") or "{}")
        write({"id": msg["id"], "result": {"content": str(args.get("text", "")).upper() + "!", "is_error": False}})
    else:
        write({"id": msg["id"], "error": "Unknown method: " + method})


for line in sys.stdin:
    line = line.strip()
    if not line:
        continue
    msg = json.loads(line)
    if msg.get("id") and msg.get("method"):
        on_rpc(msg)
    elif msg.get("id"):
        pass  # the host's answer to send_inbound
    elif msg.get("method") == "activate":
        write({"channel_provider": {"name": "pyecho", "config_schema": []}})
    elif msg.get("method") == "deactivate":
        write({})
    elif msg.get("type") == "channel_config":
        on_config(msg.get("metadata") or {})
