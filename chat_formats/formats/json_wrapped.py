"""Families writing a JSON call object in their own wrapper, one wrapper per call.

* Meituan LongCat Flash (``longcat``): ``<longcat_tool_call>{"name": N, "arguments": {…}}</longcat_tool_call>``,
  after an optional ``<longcat_think>…</longcat_think>`` block (its thinking prompt opens it).
* InternLM2 (``internlm2``) and Intern-S1 (``intern-s1``, the same calls after a ``<think>…</think>`` block)::

      <|action_start|><|plugin|>
      {"name": "get_weather", "parameters": {"city": "Paris"}}<|action_end|>

  The arguments member is ``parameters`` (InternLM2's template) or ``arguments``.

Whitespace between the markers and the JSON is free.
"""

from __future__ import annotations

from dataclasses import replace

from peg import Parser, choice, literal

from ..builder import ToolSpec, gap, json_tool_call
from ._layout import JsonWrapped, Layout, ReasoningStyle

__all__ = ["INTERNLM2", "INTERN_S1", "LONGCAT"]

LONGCAT_OPEN, LONGCAT_CLOSE = "<longcat_tool_call>", "</longcat_tool_call>"
LONGCAT_STYLE = ReasoningStyle("<longcat_think>", "</longcat_think>", prompt_opener="<longcat_think>")
ACTION_OPEN, PLUGIN, ACTION_CLOSE = "<|action_start|>", "<|plugin|>", "<|action_end|>"


#: ``longcat``.
LONGCAT = Layout(reasoning=LONGCAT_STYLE, calls=JsonWrapped(LONGCAT_OPEN, LONGCAT_CLOSE))


def _action(spec: ToolSpec) -> Parser:
    """``<|plugin|>`` and a call object with its arguments under ``parameters`` or ``arguments`` (one rule per
    spelling)."""
    params = json_tool_call(replace(spec, rule=f"{spec.rule}-p"), args_key="parameters")
    return literal(PLUGIN) + gap() + choice(params, json_tool_call(spec))


_ACTIONS = JsonWrapped(ACTION_OPEN, ACTION_CLOSE, _action, markers=(ACTION_OPEN, PLUGIN, ACTION_CLOSE))
#: ``internlm2``.
INTERNLM2 = Layout(calls=_ACTIONS)
#: ``intern-s1``: InternLM2's calls after a reasoning block.
INTERN_S1 = Layout(reasoning=ReasoningStyle("<think>", "</think>", prompt_opener="<think>\n"), calls=_ACTIONS)
