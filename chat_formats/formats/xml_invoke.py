"""Families whose calls reuse another family's call syntax in their own wrapper.

* rednote dots.llm (``dots``): MiniMax M2's ``<invoke>`` calls inside ``<dots_function_call>`` (one wrapper may
  hold several invokes; wrappers may repeat)::

      <dots_function_call>
      <invoke name="get_weather">
      <parameter name="city">Paris</parameter>
      </invoke>
      </dots_function_call>

* Ling 3.0 / Bailing V3 (``ling-3``, alias ``bailing-v3``): GLM 4.5's ``<tool_call>NAME<arg_key>…`` calls,
  after an optional ``<role>ASSISTANT</role>`` opener. The prompt opens ``<think>`` (``thinking_forced_open``);
  a call also ends unclosed reasoning.

String values are raw text, others JSON typed by the tool's schema; whitespace between markers is free.
"""

from __future__ import annotations

from peg import Parser, literal, optional, zero_or_more

from ..builder import block, gap, tool_choice_of, xml_tool_call
from . import glm, minimax
from ._layout import (
    FormatDefinition,
    FormatOptions,
    ReasoningStyle,
    content_prefix,
    repeat_calls,
    standard_layout,
    think_triggers,
)

__all__ = ["build_dots", "build_ling3"]

DOTS_OPEN, DOTS_CLOSE = "<dots_function_call>", "</dots_function_call>"
DOTS_STYLE = ReasoningStyle("<think>", "</think>")
LING_ROLE = "<role>ASSISTANT</role>"
LING_STYLE = ReasoningStyle("<think>", "</think>", ends_at_tools=True, prompt_opener="<think>")


def build_dots(options: FormatOptions) -> FormatDefinition:
    """The ``dots`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        invoke = tool_choice_of(options.active_tools, lambda spec: xml_tool_call(spec, minimax.MARKERS))
        invokes: Parser = invoke + zero_or_more(gap() + invoke) if options.parallel_tool_calls else invoke
        calls = repeat_calls(options, DOTS_OPEN + gap() + invokes + gap() + DOTS_CLOSE)
    return FormatDefinition(
        parser=standard_layout(options, style=DOTS_STYLE, tool_starts=[DOTS_OPEN], calls=calls),
        triggers=think_triggers(options, DOTS_STYLE, [DOTS_OPEN]),
        preserved_tokens=(DOTS_STYLE.open, DOTS_STYLE.close, DOTS_OPEN, DOTS_CLOSE),
        content_prefix=content_prefix(options, DOTS_STYLE),
    )


def build_ling3(options: FormatOptions) -> FormatDefinition:
    """The ``ling-3`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        calls = repeat_calls(options, tool_choice_of(options.active_tools, lambda s: xml_tool_call(s, glm.MARKERS)))
    layout = standard_layout(options, style=LING_STYLE, tool_starts=[glm.OPEN], calls=calls)
    return FormatDefinition(
        parser=optional(block(literal(LING_ROLE) + gap())) + layout,
        triggers=think_triggers(options, LING_STYLE, [glm.OPEN]),
        preserved_tokens=glm.PRESERVED,
        content_prefix=content_prefix(options, LING_STYLE),
    )
