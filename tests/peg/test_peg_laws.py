"""Consistency laws on a family of chat-like formats (Hypothesis).

(a) strings sampled from the emitted grammar parse successfully;
(b) strings the parser accepts are matched by the grammar (checked as an equivalence, both ways, on near-valid
    strings: the family's outputs with adversarial text and mutations);
(c) for every split of an input into chunks, streaming gives the same final result as one parse, every feed
    equals a partial parse of the text so far, and the text of each tag only grows between feeds.
"""

from __future__ import annotations

import json as pyjson
import random
from dataclasses import dataclass
from functools import cache

from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

import peg
from gbnf_backend.engine._npda import DEAD
from gbnf_backend.grammar import Grammar
from peg import Status, to_gbnf

from .peg_support import accepts, json_call_format, load_everywhere, xml_call_format


@dataclass(frozen=True)
class Family:
    style: str  # "json" | "xml"
    names: tuple[str, ...]
    keys: tuple[str, ...]
    reasoning: bool

    def parser(self) -> peg.Parser:
        return _parser(self)


@cache
def _parser(f: Family) -> peg.Parser:
    if f.style == "json":
        return json_call_format(list(f.names), reasoning=f.reasoning)
    return xml_call_format(list(f.names), list(f.keys), reasoning=f.reasoning)


@cache
def _grammar(f: Family) -> Grammar:
    return load_everywhere(to_gbnf(_parser(f)))


FAMILIES = [
    Family("json", ("get_weather", "get"), (), True),
    Family("json", ("search",), (), False),
    Family("xml", ("search", "read_file"), ("query", "path", "q"), True),
    Family("xml", ("run",), ("code",), False),
]

# Text pieces chosen to collide with the markers: prefixes, whole markers, overlapping closers.
FRAGMENTS = [
    "a", "b c", " ", "\n", "\u00e9", "\U0001f600", "<", ">", "/", "<think>", "</think>", "</thi", "<tool_call>",
    "<tool_c", "</tool_call>", "{", "}", '"', "\\", "\n</parameter>", "\n</parameter>\n", "</parameter>", "<parameter=",
    "</function>", "<function=",
]  # fmt: skip

text_pieces = st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join)
json_args = st.dictionaries(
    st.sampled_from(["city", "n", "q"]),
    st.none() | st.booleans() | st.integers(-50, 50) | text_pieces | st.lists(st.integers(0, 9), max_size=3),
    max_size=3,
)


@st.composite
def outputs(draw: st.DrawFn, f: Family) -> str:
    """A near-valid output of format ``f`` (valid unless the adversarial pieces break it)."""
    out = ""
    if f.reasoning and draw(st.booleans()):
        out += "<think>" + draw(text_pieces) + "</think>"
    out += draw(text_pieces)
    for _ in range(draw(st.integers(0, 2))):
        name = draw(st.sampled_from(f.names))
        if f.style == "json":
            ws = draw(st.sampled_from(["", " ", "\n"]))
            args = pyjson.dumps(draw(json_args), ensure_ascii=draw(st.booleans()))
            out += f'<tool_call>{ws}{{"name": "{name}",{ws}"arguments": {args}}}{ws}</tool_call>'
        else:
            params = "".join(
                f"<parameter={draw(st.sampled_from(f.keys))}>\n{draw(text_pieces)}\n</parameter>\n"
                for _ in range(draw(st.integers(0, 2)))
            )
            out += f"<tool_call>\n<function={name}>\n{params}</function>\n</tool_call>"
        out += draw(st.sampled_from(["", "\n", " "]))
    if draw(st.integers(0, 3)) == 0 and out:  # mutate: drop, duplicate or insert something
        i = draw(st.integers(0, len(out) - 1))
        out = out[:i] + draw(st.sampled_from(["", out[i] * 2, *FRAGMENTS])) + out[i + 1 :]
    return out


@st.composite
def family_and_output(draw: st.DrawFn) -> tuple[Family, str]:
    f = draw(st.sampled_from(FAMILIES))
    return f, draw(outputs(f))


@settings(max_examples=400, deadline=None)
@given(family_and_output())
@example((FAMILIES[2], "<think>/think><tool_call>\n<function=search>\n<parameter=query>\n</think>\n</parameter>\n"
          "<parameter=query>\n<tool_call>\n</parameter>\n</function>\n</tool_call>"))  # fmt: skip
def test_b_parser_and_grammar_accept_the_same_strings(case: tuple[Family, str]) -> None:
    f, text = case
    in_grammar, parsed = _grammar(f).matches(text), accepts(f.parser(), text)
    if in_grammar and not parsed and f.reasoning and text.startswith("<think>"):
        # The one documented gap (peg/gbnf.py: ordered choice): the parser commits to the reasoning block once
        # "<think>" ... "</think>" matches, even when what follows then fails; the grammar may also skip the
        # optional block and read "<think>" as content. Then the text must parse without the reasoning block.
        parsed = accepts(Family(f.style, f.names, f.keys, reasoning=False).parser(), text)
    assert in_grammar == parsed, text


WALK_WORDS = [w for w in FRAGMENTS if w not in ("\\",)] + [
    '"name"', '"arguments"', ": ", ", ", "get_weather", "get", "search", "read_file", "run", "query", "path", "q",
    "code", '"x"', "1", "true", "null", "[", "]", ">\n", "\n",
]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(FAMILIES), st.integers(0, 2**32))
def test_a_strings_sampled_from_the_grammar_parse(f: Family, seed: int) -> None:
    grammar = _grammar(f)
    sample = _walk(grammar, random.Random(seed))
    assume(sample is not None)
    assert sample is not None
    assert grammar.matches(sample)
    assert accepts(f.parser(), sample), sample


def _walk(grammar: Grammar, rng: random.Random) -> str | None:
    """A random walk through the grammar's automaton: whole words where they fit, else single characters."""
    npda = grammar.automaton
    state, out = npda.initial, ""
    max_steps = 200
    earliest_end = rng.randint(0, 150)  # walks that may stop at once mostly stay in the content
    for step in range(max_steps):
        nxt = npda.next_chars(state)
        if nxt.can_end and ((step >= earliest_end and rng.random() < 0.15) or step == max_steps - 1):
            return out
        fitting = [w for w in WALK_WORDS if npda.step_text(state, w) != DEAD]
        if fitting and rng.random() < 0.85:
            piece = rng.choice(fitting)
        elif nxt.allowed:
            lo, hi = rng.choice(nxt.allowed)
            cp = rng.randint(lo, min(hi, lo + 200))
            if 0xD800 <= cp <= 0xDFFF:
                continue
            piece = chr(cp)
        else:
            return None
        new = npda.step_text(state, piece)
        if new == DEAD:
            continue
        state, out = new, out + piece
    return out if npda.can_end(state) else None


@settings(max_examples=200, deadline=None)
@given(family_and_output(), st.lists(st.integers(1, 12), min_size=1, max_size=40))
def test_c_streaming_any_split_equals_one_parse_and_tag_text_only_grows(
    case: tuple[Family, str], sizes: list[int]
) -> None:
    f, text = case
    parser = f.parser()
    s = parser.stream()
    previous: dict[str, str] = {}
    i = 0
    k = 0
    while i < len(text):
        size = sizes[k % len(sizes)]
        k += 1
        r = s.feed(text[i : i + size])
        i += size
        assert r == parser.parse(text[:i], partial=True)
        if r.status is Status.FAIL:
            continue
        current = r.tag_texts()
        for name, old in previous.items():
            assert current.get(name, "").startswith(old), (name, old, current.get(name))
        previous = current
    assert s.finish() == parser.parse(text)
