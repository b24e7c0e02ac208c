"""A Python plugin whose on_input handler is a guard (define_stage with
guard=True) and whose process dies on the message "crash"."""
import os

from hearth_plugin import define_plugin, define_stage, serve


def check(ctx):
    if ctx.get("rawMessage") == "crash":
        os._exit(3)
    return ctx


serve(define_plugin(id="pyinputguard", name="Python input guard", version="1.0.0", tools={},
                    stages={"on_input": define_stage(check, guard=True)}))
