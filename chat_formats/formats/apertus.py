"""Swiss AI Apertus (``apertus``): reasoning in ``<|inner_prefix|>…<|inner_suffix|>``, calls as one JSON array
in ``<|tools_prefix|>…<|tools_suffix|>`` whose elements have the function name as their only key::

    <|inner_prefix|>…<|inner_suffix|><|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>
"""

from __future__ import annotations

import json

from peg import Parser, literal, rule, schema
from peg import json as json_value

from ..builder import ToolSpec, tool, tool_args, tool_choice_of, tool_name
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, array_calls, content_prefix, standard_layout
from ._layout import think_triggers as _triggers

__all__ = ["build"]

OPEN, CLOSE = "<|tools_prefix|>", "<|tools_suffix|>"
STYLE = ReasoningStyle("<|inner_prefix|>", "<|inner_suffix|>")
PRESERVED = (STYLE.open, STYLE.close, OPEN, CLOSE)


def _call(spec: ToolSpec) -> Parser:
    """The rule ``spec.rule``: ``{"NAME": ARGUMENTS}`` for ``spec``."""
    quoted_name = json.dumps(spec.name, ensure_ascii=False)[1:-1]
    args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
    return rule(spec.rule, tool(literal("{") << literal('"') + tool_name(quoted_name, '"') << ":" << args << "}"))


def build(options: FormatOptions) -> FormatDefinition:
    """The ``apertus`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = array_calls(options, [OPEN], tool_choice_of(options.active_tools, _call), CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=[OPEN], calls=calls),
        triggers=_triggers(options, STYLE, [OPEN]),
        preserved_tokens=PRESERVED,
        content_prefix=content_prefix(options, STYLE),
    )
