"""The chat layer on the peg features it asked for: failure nodes (no second parse), growing ids, look-aheads
the grammar enforces, bounded whitespace between markers, and the documented limit of XML argument orders."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import peg
from chat_formats import available_formats, get_format
from chat_formats.builder import GAP_MAX, MAX_PERMUTED_ARGS, ArgsOrderWarning, parse_tools, xml_tool_call
from chat_formats.formats import WITHOUT_CALLS
from gbnf_backend.grammar import Grammar
from peg import Status, lazy_grammar, to_gbnf
from tests.chat_formats.samples import TOOLS


def test_a_failed_parse_is_mapped_from_its_own_nodes_without_a_second_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    fmt = get_format("hermes", tools=TOOLS)
    calls: list[int] = []
    real = peg.Parser.parse

    def counting(self: peg.Parser, text: str | bytes, **kw: Any) -> peg.ParseResult:
        calls.append(1)
        return real(self, text, **kw)

    monkeypatch.setattr(peg.Parser, "parse", counting)
    text = 'Hi <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call> trailing <x'
    message = fmt.parse(text + "<tool_call>{bad")
    assert len(calls) == 1
    assert message.content is not None and message.content.endswith("{bad")
    assert [c.function.name for c in message.tool_calls] == ["get_weather"]


def test_kimi_id_is_published_only_once_its_digits_ended() -> None:
    fmt = get_format("kimi-k2", tools=TOOLS)
    head = "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:1"
    assert fmt.parse(head, partial=True).tool_calls == []
    message = fmt.parse(head + "2<|tool_call_argument_begin|>{", partial=True)
    assert [c.id for c in message.tool_calls] == ["functions.get_weather:12"]


def test_ministral_call_id_is_published_only_once_it_ended() -> None:
    fmt = get_format("ministral-3", tools=TOOLS)
    head = "[TOOL_CALLS]get_weather[CALL_ID]abc12"
    assert fmt.parse(head, partial=True).tool_calls == []
    assert [c.id for c in fmt.parse(head + "3[ARGS]{", partial=True).tool_calls] == ["abc123"]


@pytest.mark.parametrize("name", available_formats())
@pytest.mark.parametrize("tool_choice", ["auto", "required"])
def test_no_format_drops_a_lookahead_the_grammar_does_not_enforce(name: str, tool_choice: str) -> None:
    if name in WITHOUT_CALLS and tool_choice == "required":
        tool_choice = "auto"  # no call syntax: a forced call is refused (test_grammar)
    definition = get_format(name, tools=TOOLS, tool_choice=tool_choice).definition
    parser = definition.parser
    with warnings.catch_warnings():
        warnings.simplefilter("error", peg.GrammarWarning)
        if tool_choice == "auto" and definition.lazy:
            assert lazy_grammar(parser).dropped_lookaheads == ()
        else:
            to_gbnf(parser)


@pytest.mark.parametrize("name", ["qwen3-coder", "kimi-k2", "deepseek-r1", "gpt-oss"])
def test_whitespace_between_markers_is_bounded_in_parser_and_grammar(name: str) -> None:
    gbnf = get_format(name, tools=TOOLS, tool_choice="required").grammar().gbnf
    assert f"peg--space-{GAP_MAX} ::=" in gbnf
    assert "peg--space ::=" not in gbnf  # no unbounded whitespace rule left


def test_qwen3_coder_gap_limit_is_the_same_for_parser_and_grammar() -> None:
    fmt = get_format("qwen3-coder", tools=TOOLS, tool_choice="required")
    grammar = Grammar.from_gbnf(fmt.grammar().gbnf)
    call = "<function=ping>\n</function>"
    for n in (1, GAP_MAX, GAP_MAX + 1):
        text = "<tool_call>" + "\n" * n + call + "\n</tool_call>"
        parsed = fmt.definition.parser.parse(text).status is Status.SUCCESS
        assert parsed == grammar.matches(text) == (n <= GAP_MAX)


def _wide_tool(n: int) -> dict[str, Any]:
    props = {f"p{i}": {"type": "string"} for i in range(n)}
    return {"type": "function", "function": {"name": "wide", "parameters": {"type": "object", "properties": props}}}


def test_xml_arguments_beyond_the_permutation_limit_warn_and_stay_consistent() -> None:
    (spec,) = parse_tools([_wide_tool(MAX_PERMUTED_ARGS + 1)])
    with pytest.warns(ArgsOrderWarning, match=r"'wide' has 7 properties"):
        xml_tool_call(spec)
    (small,) = parse_tools([_wide_tool(MAX_PERMUTED_ARGS)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = xml_tool_call(small)
    assert to_gbnf(p).count("tool-wide-a") >= 2**MAX_PERMUTED_ARGS


def test_chat_format_errors_derive_from_pegchat_error() -> None:
    from chat_formats import OptionError, ToolsError, UnknownFormatError
    from chat_formats.stream import StreamClosedError
    from gbnf_backend.errors import PegchatError

    for error in (OptionError, ToolsError, UnknownFormatError):
        assert issubclass(error, PegchatError) and issubclass(error, ValueError)
    assert issubclass(StreamClosedError, PegchatError) and issubclass(StreamClosedError, RuntimeError)
    with pytest.raises(PegchatError):
        get_format("no-such-format")
