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
    tool_close,
    tool_name,
    tool_open,
)
from ..grammar import Trigger
from ._layout import Layout, ReasoningStyle, Section
from ._tagged import accepts_any_args, is_string_arg, tagged_arg, typed_value

__all__ = ["V3", "V4", "V32"]

# DeepSeek V3: DeepSeek R1's call markers.
SECTION_OPEN, SECTION_CLOSE = "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>"
CALL_OPEN, SEP, CALL_CLOSE = "<｜tool▁call▁begin｜>", "<｜tool▁sep｜>", "<｜tool▁call▁end｜>"
V3_NAME_PATTERN = r"function<｜tool▁sep｜>([\w.-]+)"

DSML = "｜DSML｜"
INVOKE_OPEN, INVOKE_CLOSE = f'<{DSML}invoke name="', f"</{DSML}invoke>"
PARAM_OPEN, PARAM_CLOSE = f'<{DSML}parameter name="', f"</{DSML}parameter>"
NAME_PATTERN = rf'<{DSML}invoke name="([\w.-]+)'
STYLE = ReasoningStyle("<think>", "</think>", ends_at_tools=True, prompt_opener="<think>")


def _v3_call(spec: ToolSpec) -> Parser:
    head = tool_open(CALL_OPEN + literal("function") + SEP) + tool_name(spec.name, "\n")
    args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
    return rule(spec.rule, tool(head + "```json" + gap() + args + gap() + "```" + gap() + tool_close(CALL_CLOSE)))


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


def _dsml(block_name: str) -> Layout:
    opener, closer = f"<{DSML}{block_name}>", f"</{DSML}{block_name}>"
    # The blank line before the block is framing (its first spelling), and the DSML marker is the special token.
    section = Section(("\n\n" + opener, opener), closer, _invoke, markers=(DSML,), name_pattern=NAME_PATTERN)
    return Layout(reasoning=STYLE, calls=section, triggers=lambda options: (Trigger.word(opener),))


#: ``deepseek-v3``.
V3 = Layout(
    calls=Section(SECTION_OPEN, SECTION_CLOSE, _v3_call, close_optional=True, name_pattern=V3_NAME_PATTERN),
    preserved=(CALL_OPEN, SEP, CALL_CLOSE),
)
#: ``deepseek-v3.2``.
V32 = _dsml("function_calls")
#: ``deepseek-v4``.
V4 = _dsml("tool_calls")
