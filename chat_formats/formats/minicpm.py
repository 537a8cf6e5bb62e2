"""OpenBMB MiniCPM 5 (``minicpm-5``): an optional ``<think>…</think>`` block, then content, then XML calls::

    <think>…</think>Let me look.<function name="get_weather"><param name="city">Paris</param></function>

String parameters are raw text up to ``</param>``, or wrapped in ``<![CDATA[…]]>`` (so a value may hold
``</param>``; the markers are not part of the value) unless the schema lists the texts; other parameters are
JSON typed by the tool's schema. Parameters come in any order, each at most once; whitespace between calls and
parameters is free. Only ``</think>`` ends the reasoning (the prompt may open the block: ``thinking_forced_open``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from peg import Parser, atomic, choice, rule, schema, until

from ..builder import (
    ToolSpec,
    gap,
    permuted_args,
    schema_is_string,
    tool,
    tool_arg,
    tool_arg_close,
    tool_arg_json_value,
    tool_arg_name,
    tool_arg_open,
    tool_arg_string_value,
    tool_close,
    tool_name,
    tool_open,
)
from ._layout import Layout, ReasoningStyle, Wrapped

__all__ = ["FORMAT"]

FUNCTION_OPEN, FUNCTION_CLOSE = '<function name="', "</function>"
PARAM_OPEN, PARAM_CLOSE = '<param name="', "</param>"
CDATA_OPEN, CDATA_CLOSE = "<![CDATA[", "]]>"
THINK = ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n")
PRESERVED = ("<think>", "</think>", "<function", "</function>", "<param", "</param>")


def _listed_texts(prop: Any) -> bool:
    """Whether ``prop`` lists its strings (``enum``/``const``) and none of them holds the value closer, so the
    grammar may offer exactly those texts."""
    if not isinstance(prop, Mapping):
        return False
    texts = prop.get("enum") if isinstance(prop.get("enum"), list) else [prop["const"]] if "const" in prop else None
    if not texts or not all(isinstance(t, str) for t in texts):
        return False
    return all((t + PARAM_CLOSE).find(PARAM_CLOSE) == len(t) for t in texts)  # each read back whole


def _arg(spec: ToolSpec, key: str) -> Parser:
    prop = spec.property_schema(key)
    name = f"{spec.rule}-{key}"
    opener = tool_arg_open(PARAM_OPEN + tool_arg_name(key) + '">')
    closer = tool_arg_close(PARAM_CLOSE)
    if schema_is_string(prop) and _listed_texts(prop):
        # Listed texts need no CDATA (none holds the closer): the grammar offers exactly them.
        value = tool_arg_string_value(schema(until(PARAM_CLOSE), name, prop, raw=True)) + closer
    elif schema_is_string(prop):
        # A CDATA value shows only once its section and the parameter are closed (``atomic``): if ``]]>`` is not
        # followed by ``</param>`` the value is read again as raw text that starts with the opener, and a stream
        # that had shown the section's text could not take it back.
        cdata = atomic(CDATA_OPEN + tool_arg_string_value(until(CDATA_CLOSE)) + CDATA_CLOSE + closer)
        value = choice(cdata, tool_arg_string_value(until(PARAM_CLOSE)) + closer)
    else:
        value = tool_arg_json_value(schema(until(PARAM_CLOSE), name, prop)) + closer
    return tool_arg(opener + value)


def _call(spec: ToolSpec) -> Parser:
    args = {k: _arg(spec, k) for k in spec.properties}
    head = tool_open(FUNCTION_OPEN + tool_name(spec.name) + '">')
    return rule(spec.rule, tool(head + permuted_args(spec, args) + gap() + tool_close(FUNCTION_CLOSE)))


#: ``minicpm-5``.
FORMAT = Layout(
    reasoning=THINK,
    calls=Wrapped.self_opening(FUNCTION_OPEN, _call, r'<function name="([\w.-]+)'),
    preserved=PRESERVED,
)
