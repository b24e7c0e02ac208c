#!/usr/bin/env python3
"""The bank plugin of conformance_test.go in Python: the same tools,
manifest and decision hook, for the same decisions."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "sdk", "python"))

from hearth_plugin import define_plugin, define_tool, serve  # noqa: E402

PAYEE = {"type": "object", "properties": {"to": {"type": "string"}, "amount": {"type": "number"}, "text": {"type": "string"}}}


def tool(name, **kw):
    def echo(args, ctx):
        turn = ctx.get("turn") or {}
        return {"tool": name, "args": args, "effect": ctx.get("effect"), "grant": ctx.get("grant", ""),
                "tainted": bool(turn.get("tainted"))}
    return define_tool(description="", execute=echo, input=PAYEE, **kw)


def resolve(args, services):
    if args.get("to") == "mallory":
        raise ValueError("mallory is a known scammer")
    return {"effect": "money", "target": {"label": "转账给 %s" % args.get("to")}}


def decide(call):
    if call["tool"] == "bank__pay" and call["args"].get("amount", 0) > 100:
        return {"verdict": "deny", "reason": "more than 100 needs the bank's app"}
    return {"verdict": "allow"}


serve(define_plugin(
    id="bank", name="银行", version="1.0.0", scopes=["bank.example"],
    default_modes={"money": "ask", "public": "off"},
    instructions="Pay with bank__pay; never pay mallory.",
    context=lambda query: "balance 42, asked: " + query,
    decide=decide,
    tools={
        "balance": tool("balance", title="余额", effect="read", day_scoped=True),
        "pay": tool("pay", title="付款", effect="money", timeout_ms=7000),
        "post": tool("post", title="发帖", effect="public"),
        "transfer": tool("transfer", title="转账", effect="write", resolve_effect=resolve),
        "web": tool("web", title="网页", effect="read", untrusted=True),
        "note": tool("note", title="记录", effect="write", serial=True),
        "admin": tool("admin", effect="write", user_only=True),
        "unlock": tool("unlock", effect="read", grant=True),
        "confirm": tool("confirm", effect="read", always_ask=True),
        "secret": tool("secret", effect="read", on_demand=True),
        "webonly": tool("webonly", effect="read", channels=["web"]),
    },
))
