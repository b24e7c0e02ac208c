#!/usr/bin/env python3
"""The [[.ID]] Hearth plugin. Hearth runs this file (plugin.json's command)."""
# Hearth puts hearth_plugin on the PYTHONPATH of the plugins it runs; the
# copy next to this file is for the tests.
from hearth_plugin import define_plugin, define_tool, serve


def hello(args, ctx):
    return "Hello, %s!" % args["name"]


PLUGIN = define_plugin(
    id="[[.ID]]", name="[[.ID]]", version="0.1.0",
    tools={
        "hello": define_tool(
            description="Greets someone by name.", effect="read",
            input={"type": "object", "properties": {"name": {"type": "string", "description": "who to greet"}},
                   "required": ["name"]},
            execute=hello),
    },
)

if __name__ == "__main__":
    serve(PLUGIN)
