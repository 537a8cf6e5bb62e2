"""Swiss AI Apertus (``apertus``): reasoning in ``<|inner_prefix|>…<|inner_suffix|>``, calls as one JSON array
in ``<|tools_prefix|>…<|tools_suffix|>`` whose elements have the function name as their only key::

    <|inner_prefix|>…<|inner_suffix|><|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>
"""

from __future__ import annotations

import json

from peg import Parser, literal, rule, schema
from peg import json as json_value

from ..builder import ToolSpec, json_seq, tool, tool_args, tool_name
from ._layout import JsonArray, Layout, ReasoningStyle

__all__ = ["FORMAT"]


def _call(spec: ToolSpec) -> Parser:
    """The rule ``spec.rule``: ``{"NAME": ARGUMENTS}`` for ``spec``."""
    quoted_name = json.dumps(spec.name, ensure_ascii=False)[1:-1]
    args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
    return rule(spec.rule, tool(json_seq("{", literal('"') + tool_name(quoted_name, '"'), ":", args, "}")))


#: ``apertus``.
FORMAT = Layout(
    reasoning=ReasoningStyle("<|inner_prefix|>", "<|inner_suffix|>"),
    calls=JsonArray("<|tools_prefix|>", "<|tools_suffix|>", _call, name_pattern=r'\[\s*\{\s*"([\w.-]+)'),
)
