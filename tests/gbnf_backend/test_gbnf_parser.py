"""GBNF text → rules: llama.cpp's encoding, refusals with positions, printing back."""

from __future__ import annotations

import json

import pytest

from gbnf_backend import Grammar, GrammarError
from gbnf_backend._analysis import alternatives, nullable_rules
from gbnf_backend._elements import ElementType
from gbnf_backend._gbnf_parser import MAX_ELEMENTS, MAX_NESTED_REPETITION, MAX_REPETITION_BOUND
from tests.corpora import CORPORA

PARSER_CORPUS = json.loads((CORPORA / "gbnf-parser.json").read_text())


@pytest.mark.parametrize("case", PARSER_CORPUS["valid_detailed"], ids=lambda c: c["source"])
def test_encoding_matches_llamacpp(case: dict[str, object]) -> None:
    grammar = Grammar.from_gbnf(str(case["grammar"]))
    assert grammar.symbol_ids == case["symbol_ids"]
    expected = [[(ElementType[kind].value, value) for kind, value in rule] for rule in case["rules"]]  # type: ignore[attr-defined]
    assert [list(rule) for rule in grammar.rules] == expected


@pytest.mark.parametrize("text", PARSER_CORPUS["valid"])
def test_corpus_valid_grammars_parse_and_print_back(text: str) -> None:
    grammar = Grammar.from_gbnf(text)
    again = Grammar.from_gbnf(grammar.to_gbnf())
    assert again.canonical() == grammar.canonical()


@pytest.mark.parametrize("text", PARSER_CORPUS["invalid"])
def test_corpus_invalid_grammars_are_refused(text: str) -> None:
    with pytest.raises(GrammarError) as info:
        Grammar.from_gbnf(text)
    assert info.value.line >= 1 and info.value.column >= 1


def _error(text: str, root: str = "root") -> GrammarError:
    with pytest.raises(GrammarError) as info:
        Grammar.from_gbnf(text, root)
    return info.value


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ('root ::= "abc', 1, 10, "unterminated literal"),
        ("root ::= [abc", 1, 10, "unterminated character class"),
        ('root ::= "a"\nx "b"', 2, 3, "'::='"),
        ('root ::= ("a" | "b"', 1, 10, "unbalanced '('"),
        ('root ::= "a")', 1, 13, "unbalanced ')'"),
        ('root ::= "a"{3,1}', 1, 13, "maximum below its minimum"),
        ('root ::= "a"{,3}', 1, 14, "integer"),
        ('root ::= * "a"', 1, 10, "needs an item before it"),
        ('root ::= "\\q"', 1, 11, "unknown escape"),
        ('root ::= "\\x4"', 1, 11, "hex digits"),
        ("root ::= []", 1, 10, "empty character class"),
        ("root ::= [z-a]", 1, 13, "out of order"),
        ("root ::= <hello>", 1, 10, "token references"),
        ('root ::= item\nitem ::= "a"\nitem ::= "b"', 3, 1, "defined twice (first at 2:1)"),
        ("root ::= missing", 1, 10, "undefined rule 'missing'"),
        ('root ::= root "a" | "b"', 1, 1, "left recursion: root -> root"),
        ('root ::= "x" root', 1, 1, "can never finish"),
        ('foo ::= "a"', 1, 12, "no rule named 'root'"),
        (f'root ::= "a"{{{MAX_REPETITION_BOUND + 1}}}', 1, 13, "above the limit"),
        ('root ::= ("a"{0,200}){0,200}', 1, 22, f"limit of {MAX_NESTED_REPETITION}"),
        # A line break ends a rule outside groups, after a literal too.
        ('root ::= "ab"\n  "c"', 2, 3, "expecting a rule name"),
        ('root ::= x # note\nx ::= "a" "b" # note\n  y', 3, 4, "'::='"),
    ],
)
def test_refusals_name_line_and_column(text: str, line: int, column: int, words: str) -> None:
    error = _error(text)
    assert words in str(error)
    assert (error.line, error.column) == (line, column)
    assert isinstance(error, ValueError)
    # The message shows the offending line with a caret under the column.
    snippet_line, caret = error.source_line.splitlines()
    assert snippet_line == text.splitlines()[line - 1]
    assert caret.index("^") == column - 1


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        (f'x ::= "{"x" * 50}"{{{MAX_REPETITION_BOUND}}}\nroot ::= x', 1, 59),  # inline copies
        (f'root ::= "a"\nx ::= "{"x" * 40}"{{0,{MAX_REPETITION_BOUND}}} "b"', 2, 49),  # a chain of helper rules
    ],
)
def test_size_limit_is_checked_before_a_repetition_is_expanded(text: str, line: int, column: int) -> None:
    error = _error(text)
    assert f"more than {MAX_ELEMENTS} elements" in str(error)
    assert (error.line, error.column) == (line, column)


def test_left_recursion_through_a_rule_that_can_be_empty() -> None:
    text = 'root ::= a\na ::= opt b "x" | "y"\nb ::= a "z"\nopt ::= "o" |\n'
    error = _error(text)
    assert "left recursion" in str(error) and "a -> b -> a" in str(error)


def test_nullable_tail_loop_is_not_left_recursion() -> None:
    # The loop pushes nothing (tail call), so it is a fixed point, not an infinite descent.
    grammar = Grammar.from_gbnf("root ::= ( [x]* )*")
    assert grammar.matches("") and grammar.matches("xxx") and not grammar.matches("y")


def test_whole_syntax() -> None:
    text = r"""
# a comment line
root ::= greeting ws ( name
                     | "anon" ) [!?.]{1,3} tail  # newline inside a group
greeting ::= "h\x65llo" | "\u00e9t\U0001F600" |
             "hi"
name ::= [A-Z] [a-z\x2D]* | [^\[\]\\0-9\n]
tail ::= | "\t" .
ws ::= " "?
"""
    grammar = Grammar.from_gbnf(text)
    assert grammar.matches("hello Bob!")
    assert grammar.matches("hi anon???")
    assert grammar.matches("\u00e9t\U0001f600 Ma-ry.\tZ")
    assert grammar.matches("hi*!")  # [^...] accepts '*'
    assert not grammar.matches("hi [!")  # '[' is excluded from the negated class
    assert not grammar.matches("hi Bob!!!!")
    assert not grammar.matches("hello bob!")
    assert Grammar.from_gbnf(grammar.to_gbnf()).canonical() == grammar.canonical()


def test_custom_root_and_empty_alternatives() -> None:
    grammar = Grammar.from_gbnf('start ::= | "a" start-2\nstart-2 ::= "b" |', root="start")
    assert grammar.matches("") and grammar.matches("ab") and grammar.matches("a")
    assert not grammar.matches("b")
    assert "start" in grammar.to_gbnf()


def test_repetition_expansion_is_linear_in_the_bounds() -> None:
    small = Grammar.from_gbnf('root ::= "ab"{10,100}')
    large = Grammar.from_gbnf('root ::= "ab"{100,1000}')
    size = sum(len(r) for r in small.rules)
    assert sum(len(r) for r in large.rules) < 11 * size
    assert large.matches("ab" * 100) and large.matches("ab" * 1000)
    assert not large.matches("ab" * 99) and not large.matches("ab" * 1001)
    assert len(large.chains) == 1 and len(large.chains[0].rule_ids) == 900


def test_printing_keeps_a_one_character_range_a_range() -> None:
    grammar = Grammar.from_gbnf("root ::= [099999-9]+ [a-a]")
    printed = grammar.to_gbnf()
    assert "[099999-9]" in printed and "[a-a]" in printed, printed
    assert Grammar.from_gbnf(printed).canonical() == grammar.canonical()


def test_printing_escapes_round_trip() -> None:
    text = 'root ::= "q\\"\\\\\\n\\t\\r\\x01\\u2028" [\\]\\[\\x2D^a-c\\x00-\\x1F] [^-]'
    grammar = Grammar.from_gbnf(text)
    printed = grammar.to_gbnf()
    assert Grammar.from_gbnf(printed).canonical() == grammar.canonical()
    assert grammar.matches('q"\\\n\t\r\x01\u2028-x') and grammar.matches('q"\\\n\t\r\x01\u2028^a')


@pytest.mark.parametrize(
    "text",
    [
        'root ::= "a"{2,4}{2,4}{2,4}',  # found by the GBNF campaign: the printed text named an unprinted helper
        "root ::= [a-c]{2}{0,3} [a-c]{2,4}{3}",
        'root ::= x{1,3}{2,4} .{2}{0,3}\nx ::= "x" | "y"',
        'root ::= [^a]{0,3}{0,3}{0,3} "ab"{3}{0,4}',
    ],
)
def test_printing_nested_bounded_repetitions_round_trips_exactly(text: str) -> None:
    grammar = Grammar.from_gbnf(text)
    printed = grammar.to_gbnf()
    assert Grammar.from_gbnf(printed).canonical() == grammar.canonical(), printed


@pytest.mark.parametrize("text", ['root ::= ("ab"){2,3}{2,5}', 'root ::= "a"{2,}{0,3} "b"'])
def test_printing_a_bounded_repetition_of_an_open_one_keeps_the_language(text: str) -> None:
    # The operand ends in a helper rule that is no chain ("x |" or "x y |"): printed as a group (a new helper
    # rule when parsed back), so the rules differ but the language does not.
    grammar = Grammar.from_gbnf(text)
    again = Grammar.from_gbnf(grammar.to_gbnf())
    for n in range(16):
        for sample in ("ab" * n, "a" * n + "b", "a" * n):
            assert again.matches(sample) == grammar.matches(sample), sample


def test_token_references_parse() -> None:
    grammar = Grammar.from_gbnf("root ::= <[7]> !<[7]>* <[8]>")
    assert grammar.matches_pieces([7, 9, 10, 8])
    assert grammar.matches_pieces([7, "text", 8])
    assert not grammar.matches_pieces([7, 7, 8])
    assert not grammar.matches("anything")
    assert "<[7]> " in grammar.to_gbnf() and "!<[7]>" in grammar.to_gbnf()


def test_non_str_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        Grammar.from_gbnf(b'root ::= "a"')  # type: ignore[arg-type]


def test_literals_and_references_with_comments_and_line_breaks_in_groups() -> None:
    text = 'root ::= ( "a\\"b" # one\n   x "c"# two\n | "" ) "d"  # three\nx ::= "\\x78"\n'
    grammar = Grammar.from_gbnf(text)
    assert grammar.matches('a"bxcd') and grammar.matches("d")
    assert not grammar.matches('a\\"bxcd') and not grammar.matches("abxcd")


def test_generated_names_never_collide_with_names_in_the_text() -> None:
    # The helper names llama.cpp would give (rule name + "_" + id) are taken by rules the grammar defines.
    text = 'root ::= "a"{0,3} root_1\nroot_1 ::= "b" root_2 root_3\nroot_2 ::= "c"\nroot_3 ::= "d"?\n'
    grammar = Grammar.from_gbnf(text)
    assert len(set(grammar.names)) == len(grammar.names)
    assert grammar.matches("aabcd") and grammar.matches("bc") and not grammar.matches("aaaabc")
    assert Grammar.from_gbnf(grammar.to_gbnf()).canonical() == grammar.canonical()


def test_analysis_of_long_dependency_chains_in_either_direction() -> None:
    # r0 needs r1 needs ... r3000: nullable and "can finish" only propagate from the last rule back to the first,
    # against the id order (the case that made a round-robin fixed point quadratic).
    n = 3000
    forward = "root ::= r0\n" + "".join(f'r{k} ::= "x" r{k + 1} | r{k + 1}\n' for k in range(n))
    grammar = Grammar.from_gbnf(forward + f'r{n} ::= "y" |\n')
    assert all(grammar.nullable)
    assert grammar.matches("") and grammar.matches("xxy") and not grammar.matches("yx")
    assert "can never finish" in str(_error(forward + f'r{n} ::= "y" r{n}\n'))
    looped = str(_error(forward + f'r{n} ::= r0 "z" |\n'))
    assert "left recursion" in looped and "r0 -> r1 -> r2" in looped


def test_nullable_rules_and_alternatives() -> None:
    a, b, c = 0, 1, 2
    ref, ch, alt, end = ElementType.RULE_REF, ElementType.CHAR, ElementType.ALT, ElementType.END
    rules = [
        [(ref, b), (ref, c), (end, 0)],  # a ::= b c
        [(ch, 120), (alt, 0), (ref, c), (end, 0)],  # b ::= "x" | c
        [(ch, 121), (alt, 0), (end, 0)],  # c ::= "y" |
    ]
    assert nullable_rules(rules) == [True, True, True]
    rules[c] = [(ch, 121), (end, 0)]
    assert nullable_rules(rules) == [False, False, False]
    assert alternatives(rules[b]) == [[(ch, 120)], [(ref, c)]]
    assert alternatives([(ch, 1), (alt, 0), (alt, 0), (end, 0)]) == [[(ch, 1)], [], []]
    assert a == 0
