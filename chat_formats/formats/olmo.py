"""AllenAI OLMo 3 (``olmo-3``): an optional ``<think>…</think>`` block, content, then pythonic calls one per
line inside ``<function_calls>…</function_calls>``::

    <think>…</think><function_calls>get_weather(city='Paris', unit='c')
    ping()</function_calls>

Calls and values are those of ``pythonic`` (see ``_pythonic.py``): keyword arguments in any order, Python
literals typed by the tool's schema (JSON's ``true`` / ``false`` / ``null`` too), converted to JSON arguments.
Calls are separated by whitespace (OLMo writes a newline). The closing tag may be missing when the output stops
right after the last call. OLMo 3 Think prompts may open the reasoning block (``thinking_forced_open``); only
``</think>`` ends it.
"""

from __future__ import annotations

from peg import Parser, optional, trigger_rule, zero_or_more

from ..builder import block, gap, tool_choice_of
from ._layout import (
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    standard_layout,
    think_triggers,
)
from ._pythonic import _call as pythonic_call

__all__ = ["build"]

OPEN, CLOSE = "<function_calls>", "</function_calls>"
THINK = ReasoningStyle("<think>", "</think>", prompt_opener="<think>")


def _calls(options: FormatOptions) -> Parser:
    call = block(tool_choice_of(options.active_tools, pythonic_call))
    body = call + zero_or_more(gap() + call) if options.parallel_tool_calls else call
    section = block(trigger_rule("tool-calls", OPEN + gap() + body + optional(gap() + CLOSE) + gap()))
    return section if options.calls_forced else optional(section)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``olmo-3`` definition for ``options``."""
    calls = _calls(options) if options.calls_enabled else None
    return FormatDefinition(
        parser=standard_layout(options, style=THINK, tool_starts=[OPEN], calls=calls),
        triggers=think_triggers(options, THINK, [OPEN]),
        preserved_tokens=(THINK.open, THINK.close, OPEN, CLOSE),
        content_prefix=content_prefix(options, THINK),
        tool_name_pattern=r"<function_calls>\s*([A-Za-z_][\w.-]*)\(",
    )
