"""DeepSeek V3 (``deepseek-v3``), V3.2 (``deepseek-v3.2``) and V4 (``deepseek-v4``).

V3 writes DeepSeek R1's calls (fenced JSON arguments) and no reasoning block::

    <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
    ```json
    {"city": "Paris"}
    ```<｜tool▁call▁end｜><｜tool▁calls▁end｜>

V3.2 writes DSML, one parameter per tag; ``string="true"`` marks a raw string value, ``string="false"`` a JSON
value (the template's rule: ``false`` for every parameter whose schema is not a string)::

    …</think>

    <｜DSML｜function_calls>
    <｜DSML｜invoke name="get_weather">
    <｜DSML｜parameter name="city" string="true">Paris</｜DSML｜parameter>
    <｜DSML｜parameter name="days" string="false">3</｜DSML｜parameter>
    </｜DSML｜invoke>
    </｜DSML｜function_calls>

V4 names the block ``<｜DSML｜tool_calls>``; the rest is the same. Both prompts open ``<think>`` when thinking
(``thinking_forced_open``), and the block opener also ends unclosed reasoning. The blank line before the block
is framing, not content. An invoke of a tool without required parameters may close itself
(``<｜DSML｜invoke name="submit"/>``). A declared parameter's value is typed by its schema whichever ``string``
attribute the model wrote; a tool that declares no parameters takes any, typed by the attribute.
"""

from __future__ import annotations

from peg import Parser, chars, choice, literal, rule, schema, until, zero_or_more
from peg import json as json_value

from ..builder import (
    ToolSpec,
    gap,
    permuted_args,
    tool,
    tool_arg_json_value,
    tool_arg_name,
    tool_arg_string_value,
    tool_args,
    tool_choice_of,
    tool_close,
    tool_name,
    tool_open,
)
from ..grammar import Trigger
from ._layout import FormatDefinition, FormatOptions, ReasoningStyle, content_prefix, standard_layout
from ._tagged import accepts_any_args, call_section, is_string_arg, tagged_arg, typed_value

__all__ = ["build_v3", "build_v4", "build_v32"]

# DeepSeek V3: DeepSeek R1's call markers.
SECTION_OPEN, SECTION_CLOSE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_OPEN, SEP, CALL_CLOSE = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
V3_PRESERVED = (SECTION_OPEN, SECTION_CLOSE, CALL_OPEN, SEP, CALL_CLOSE)

DSML = "｜DSML｜"
INVOKE_OPEN, INVOKE_CLOSE = f'<{DSML}invoke name="', f"</{DSML}invoke>"
PARAM_OPEN, PARAM_CLOSE = f'<{DSML}parameter name="', f"</{DSML}parameter>"
STYLE = ReasoningStyle("<think>", "</think>", ends_at_tools=True, prompt_opener="<think>")


def _v3_call(spec: ToolSpec) -> Parser:
    head = tool_open(CALL_OPEN + literal("function") + SEP) + tool_name(spec.name, "\n")
    args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
    return rule(spec.rule, tool(head + "```json" + gap() + args + gap() + "```" + gap() + tool_close(CALL_CLOSE)))


def build_v3(options: FormatOptions) -> FormatDefinition:
    """The ``deepseek-v3`` definition for ``options``."""
    calls = None
    if options.calls_enabled:
        call = tool_choice_of(options.active_tools, _v3_call)
        calls = call_section(options, [SECTION_OPEN], call, SECTION_CLOSE, closer_optional=True)
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=[SECTION_OPEN], calls=calls),
        triggers=(Trigger.word(SECTION_OPEN),),
        preserved_tokens=V3_PRESERVED,
    )


def _param(spec: ToolSpec, key: str) -> Parser:
    # The schema types a declared parameter: its own attribute comes first (what the template teaches), and the
    # other one is read too — a model that marks a number string="true" still gets a number.
    attrs = ("true", "false") if is_string_arg(spec, key) else ("false", "true")
    opener = PARAM_OPEN + tool_arg_name(key) + '" string="' + choice(*attrs) + '">'
    return tagged_arg(opener, typed_value(spec, key, [PARAM_CLOSE]), PARAM_CLOSE)


def _any_param(spec: ToolSpec) -> Parser:
    """A parameter of a tool that declares none (any name; typed by its ``string`` attribute)."""
    name = PARAM_OPEN + tool_arg_name(chars('[^"<>]', 1, 64))
    raw = tagged_arg(name + '" string="true">', tool_arg_string_value(until(PARAM_CLOSE)), PARAM_CLOSE)
    value = tool_arg_json_value(schema(until(PARAM_CLOSE), f"{spec.rule}-any", {}))
    return choice(raw, tagged_arg(name + '" string="false">', value, PARAM_CLOSE))


def _invoke(spec: ToolSpec) -> Parser:
    if accepts_any_args(spec):
        args = zero_or_more(gap() + _any_param(spec))
    else:
        args = permuted_args(spec, {k: _param(spec, k) for k in spec.properties})
    full = tool_open(INVOKE_OPEN + tool_name(spec.name) + '">') + args + gap() + tool_close(INVOKE_CLOSE)
    if spec.required:
        return rule(spec.rule, tool(full))
    closed_itself = tool_open(INVOKE_OPEN + tool_name(spec.name) + '"') + tool_close("/>")
    return rule(spec.rule, tool(choice(full, closed_itself)))


def _build_dsml(options: FormatOptions, block_name: str) -> FormatDefinition:
    opener, closer = f"<{DSML}{block_name}>", f"</{DSML}{block_name}>"
    starts = ["\n\n" + opener, opener]  # the blank line before the block is framing
    calls = None
    if options.calls_enabled:
        calls = call_section(options, starts, tool_choice_of(options.active_tools, _invoke), closer)
    return FormatDefinition(
        parser=standard_layout(options, style=STYLE, tool_starts=starts, calls=calls),
        triggers=(Trigger.word(opener),),
        preserved_tokens=(DSML, STYLE.open, STYLE.close),  # the DSML marker is the special token
        content_prefix=content_prefix(options, STYLE),
    )


def build_v32(options: FormatOptions) -> FormatDefinition:
    """The ``deepseek-v3.2`` definition for ``options``."""
    return _build_dsml(options, "function_calls")


def build_v4(options: FormatOptions) -> FormatDefinition:
    """The ``deepseek-v4`` definition for ``options``."""
    return _build_dsml(options, "tool_calls")
