"""Plain content, no tool calls (``content-only``): what a model without tool support writes::

    <think>…</think>The answer.

An optional leading ``<think>…</think>`` block is reasoning (or, with ``thinking_forced_open``, the text up to
``</think>``); the rest is content. Tools in the request are not parsed (the format has no call syntax), and
the grammar allows any output.
"""

from __future__ import annotations

from dataclasses import replace

from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, standard_layout

__all__ = ["build"]

STYLE = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")


def build(options: FormatOptions) -> FormatDefinition:
    """The ``content-only`` definition for ``options`` (tools ignored)."""
    no_tools = replace(options, tools=(), tool_choice="none")
    return FormatDefinition(
        parser=standard_layout(no_tools, style=STYLE, tool_starts=(), calls=None),
        preserved_tokens=(STYLE.open, STYLE.close),
        content_prefix=content_prefix(options, STYLE),
        lazy=False,
    )
