"""MeetKai Functionary v3.1 (``functionary-v3.1-llama-3.1``) and v3.2 (``functionary-v3.2``).

v3.1 (on Llama 3.1): content, then calls ``<function=NAME>{…}</function>``; for a tool named ``python`` or
``ipython`` also raw code after ``<|python_tag|>`` (to the end of the output; it fills the tool's one string
argument, ``code`` by default)::

    Let me check.<function=get_weather>{"city": "Paris"}</function>

v3.2: the prompt ends with ``>>>``, so the output starts with a recipient line: ``all`` for text, or a tool
name for a call; every further message starts with ``>>>``. Arguments are JSON; the ``python`` tool may take
raw code instead (anything not starting with ``{``, up to the next ``>>>``)::

    all
    Let me check.>>>get_weather
    {"city": "Paris"}>>>ping
    {}

Output without a recipient line is content (with ``tool_choice="required"`` text needs its ``all`` line, so
the grammar tells it from a call exactly); raw code comes last. Text after the calls does not fit either format
(it is returned as content, with a warning).
"""

from __future__ import annotations

from peg import (
    Parser,
    chars,
    choice,
    end,
    eps,
    literal,
    negate,
    optional,
    rest,
    rule,
    trigger_rule,
    until,
    zero_or_more,
)

from ..builder import (
    ToolSpec,
    block,
    content,
    gap,
    implied_arg_name,
    implied_tool_name,
    tool,
    tool_arg,
    tool_arg_close,
    tool_arg_string_value,
    tool_choice_of,
    tool_close,
    tool_name,
)
from ..grammar import Trigger
from ._layout import XML_FUNCTION_PATTERN, FormatDefinition, FormatOptions, regex_escape, standard_layout
from .llama import PYTHON_TAG, json_args

__all__ = ["build_v3_1", "build_v3_2"]

FUNCTION_OPEN, FUNCTION_CLOSE = "<function=", "</function>"
PYTHON_TOOLS = ("python", "ipython")


def code_argument(spec: ToolSpec) -> str | None:
    """The argument raw code fills for a code tool: its one string property (``code`` when it declares no
    properties), or None when that is ambiguous (several string properties, or none among several)."""
    if spec.parameters.get("type", "object") != "object":
        return None
    if not spec.properties:
        return "code"
    strings = [k for k, v in spec.properties.items() if isinstance(v, dict) and v.get("type") == "string"]
    return strings[0] if len(strings) == 1 else None


def raw_code_call(spec: ToolSpec, key: str, code: Parser, rule_name: str, head: Parser | None = None) -> Parser:
    """A call of ``spec`` whose only argument ``key`` is the raw text ``code`` matches (streamed as a JSON
    string). ``head`` matches the name (default: none written, the name is implied); the key is implied; the
    call is complete when ``code`` is."""
    arg = tool_arg(implied_arg_name(key) + tool_arg_string_value(code) + tool_arg_close(eps()))
    name = implied_tool_name(spec.name) if head is None else head
    return rule(rule_name, tool(name + arg + tool_close(eps())))


# --- v3.1 -------------------------------------------------------------------------------------------------------
def _v31_call(spec: ToolSpec) -> Parser:
    head = FUNCTION_OPEN + tool_name(spec.name, ">")
    return rule(spec.rule, tool(head + gap() + json_args(spec) + gap() + tool_close(FUNCTION_CLOSE)))


def build_v3_1(options: FormatOptions) -> FormatDefinition:
    """The ``functionary-v3.1-llama-3.1`` definition for ``options``."""
    if not options.calls_enabled:
        return FormatDefinition(parser=content(rest()) + end(), preserved_tokens=(PYTHON_TAG,))
    tools = options.active_tools
    call = block(tool_choice_of(tools, _v31_call))
    coder = next((t for t in tools if t.name in PYTHON_TOOLS and code_argument(t)), None)
    python: Parser | None = None
    if coder is not None:
        key = code_argument(coder) or "code"
        python = PYTHON_TAG + block(raw_code_call(coder, key, rest(), f"code-{coder.rule}"))
    if options.parallel_tool_calls:
        body = call + zero_or_more(gap() + call)
        if python is not None:
            body = body + optional(gap() + python)
    else:
        body = call
    sections = [trigger_rule("tool-calls", body)]
    starts = [FUNCTION_OPEN]
    triggers = [Trigger.word(FUNCTION_OPEN)]
    if python is not None:
        sections.append(trigger_rule("python-call", python))
        starts.append(PYTHON_TAG)
        triggers.append(Trigger.word(PYTHON_TAG))
    calls = choice(*sections)
    if not options.calls_forced:
        calls = optional(calls)
    return FormatDefinition(
        parser=standard_layout(options, style=None, tool_starts=starts, calls=calls),
        triggers=tuple(triggers),
        preserved_tokens=(PYTHON_TAG,),
        tool_name_pattern=XML_FUNCTION_PATTERN,
    )


# --- v3.2 -------------------------------------------------------------------------------------------------------
SEP, TEXT = ">>>", "all\n"


def _v32_call(spec: ToolSpec) -> Parser:
    return rule(spec.rule, tool(tool_name(spec.name, "\n") + json_args(spec)))


def _v32_raw_python(tools: tuple[ToolSpec, ...]) -> Parser | None:
    """``python`` followed by raw code: anything not starting with ``{`` (that is JSON arguments, so arguments
    never turn into code halfway), up to the next ``>>>``."""
    spec = next((t for t in tools if t.name == "python"), None)
    key = code_argument(spec) if spec is not None else None
    if spec is None or key is None:
        return None
    code = chars("[^{]", 1, 1) + until(SEP)
    return block(raw_code_call(spec, key, code, f"code-{spec.rule}", tool_name(spec.name, "\n")))


def build_v3_2(options: FormatOptions) -> FormatDefinition:
    """The ``functionary-v3.2`` definition for ``options``."""
    preserved = ("<|end_header_id|>",)
    if not options.calls_enabled:
        parser = optional(TEXT) + content(rest()) + end()
        return FormatDefinition(parser=parser, preserved_tokens=preserved)
    tools = options.active_tools
    call = block(tool_choice_of(tools, _v32_call))
    raw = _v32_raw_python(tools)
    if options.parallel_tool_calls:
        body = call + zero_or_more(block(literal(SEP) + call))
        if raw is not None:
            # Raw code runs up to a ">>>", so it comes last: the grammar then needs no look-ahead after it.
            body = choice(body + optional(block(literal(SEP) + raw)), raw)
    else:
        body = call if raw is None else choice(call, raw)
    calls = trigger_rule("tool-calls", body)
    # The separator right after the text (not inside the rule) makes the grammar's text exact: it cannot
    # end in ">" just before a ">>>" (which the parser would read as a separator one character earlier).
    # The text alternative never starts where a call is already recognisable (its name complete, hence
    # possibly streamed): a call that breaks later stays a call, the rest comes back as content (warning).
    if options.calls_forced and not options.content_before_forced_calls:
        parser = calls  # the output is the call(s)
    elif options.calls_forced:
        # No look-ahead (the grammar has no form for it): text needs its "all" line, so the alternatives
        # are disjoint and the grammar exact.
        parser = choice(calls, TEXT + content(until(SEP)) + SEP + calls)
    else:
        # The lazy grammar holds only the trigger rule, so this look-ahead never reaches it.
        heads = negate(choice(*(literal(t.name + "\n") for t in tools)))
        parser = choice(calls, heads + optional(TEXT) + content(until(SEP)) + optional(SEP + calls))
    parser = parser + gap() + end()
    names = "|".join(regex_escape(t.name) for t in sorted(tools, key=lambda t: (-len(t.name), t.name)))
    return FormatDefinition(
        parser=parser,
        triggers=(Trigger.pattern_full(rf"((?:{names})\n)[\s\S]*"), Trigger.pattern(f"{SEP}()")),
        preserved_tokens=preserved,
        tool_name_pattern=r">>>([\w.-]+)\n",
    )
