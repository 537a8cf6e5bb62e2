"""The core never crashes the process and never hangs: caps checked while the work proceeds, shared stack tails,
the sticky error state in the decode loop, and typed errors for bad ids, counts, tables and buffers.

Each of the fuzz findings against the Python engine listed when the core was planned is a test here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from gbnf_backend import Grammar
from gbnf_backend.engine._native import load_core
from gbnf_backend.engine._native.engine import native_engine
from gbnf_backend.engine.bitmask import allocate_token_bitmask, bitmask_to_bool
from gbnf_backend.errors import ArgumentTypeError, MatcherError, MatchLimitError
from gbnf_backend.vocab.vocabulary import Vocabulary

from .support import EOS, OracleMatcher, mask_of, native_matcher, requires_core, small_vocab, walk_and_compare

pytestmark = requires_core


def core() -> Any:
    module = load_core()
    assert module is not None
    return module


# ---- fuzz findings ------------------------------------------------------------------------------------------------
def test_nested_nullable_repetitions_fail_into_the_error_state_instead_of_running_for_a_minute() -> None:
    grammar = Grammar.from_gbnf('root ::= (("b"?){0,99}){0,99}')
    engine = native_engine(core(), grammar, None)
    with pytest.raises(core().LimitError, match="closure steps"):
        engine.step_text(engine.initial, "b")
    matcher = native_matcher(grammar, small_vocab())
    assert not matcher.accept_string("b")
    assert matcher.is_error() and "closure steps" in str(matcher.error)
    assert np.flatnonzero(mask_of(matcher)).tolist() == [EOS]
    b = small_vocab().token_bytes.index(b"b")
    assert not matcher.accept_token(b) and not matcher.is_token_allowed(b)


@pytest.mark.parametrize("engine", ["core", "python"])
def test_a_query_that_hits_the_cap_answers_false_only_in_the_error_state(engine: str) -> None:
    # Found by the matcher campaign: the core's first is_token_allowed("aaaa") after "b" ran out of closure
    # budget and answered False with no error, though the token is allowed (a retry, its closures cached, says so).
    text = (
        'root ::= r0\nr0 ::= (r1){1,} | ("\U0001f600"){0,3}\n'
        'r1 ::= (.){2} | ("ab")? ([a-c]) (r0){1,} ([ -~]){0,40} | ([\\x2D-\\x2F]){0,3}\n'
    )
    vocab = small_vocab()
    aaaa = len(vocab.token_bytes)
    vocab = Vocabulary.from_tokens([*vocab.token_bytes, b"aaaa"], eos_token_ids=[EOS], special_token_ids=[0, 1, 3])
    matcher = native_matcher(Grammar.from_gbnf(text), vocab) if engine == "core" else OracleMatcher(text, vocab)
    assert matcher.accept_string("b")
    allowed = matcher.is_token_allowed(aaaa)
    assert allowed or (matcher.is_error() and "ambiguous" in str(matcher.error))
    assert matcher.accept_token(aaaa) == allowed  # the sticky error refuses what the query gave up on


def test_a_left_nested_chain_of_rules_costs_memory_linear_in_the_chain() -> None:
    n = 5000
    text = "root ::= r0\n" + "\n".join(f'r{i} ::= r{i + 1} "x"' for i in range(n)) + f'\nr{n} ::= "x"\n'
    grammar = Grammar.from_gbnf(text)
    engine = native_engine(core(), grammar, None)
    state = engine.step_text(engine.initial, "x" * (n + 1))
    assert engine.can_end(state)
    assert engine.step_text(engine.initial, "x" * (n + 2)) == -1
    assert engine.n_nodes <= 3 * n  # one frame per rule on the one live stack, shared by every step
    assert len(engine.stacks(engine.initial)) == 1


def test_exponentially_many_stacks_set_the_sticky_error_in_every_matcher_method() -> None:
    grammar = Grammar.from_gbnf('s ::= "a" s "b" | "a" s "c" | ""', root="s")
    engine = native_engine(core(), grammar, None)
    with pytest.raises(core().LimitError, match="live stacks"):
        engine.step_text(engine.initial, "a" * 16)
    vocab = small_vocab()
    matcher = native_matcher(grammar, vocab)
    assert not matcher.accept_string("a" * 16)  # no MatchLimitError in the decode loop
    assert matcher.is_error()
    a = vocab.token_bytes.index(b"a")
    assert not matcher.accept_token(a)
    assert np.flatnonzero(mask_of(matcher)).tolist() == [EOS]
    matcher.reset()
    assert not matcher.is_error() and matcher.accept_token(a)
    for _ in range(15):
        if not matcher.accept_token(a):
            break
    assert matcher.is_error()
    assert np.flatnonzero(mask_of(matcher)).tolist() == [EOS]


def test_the_initial_state_over_the_cap_is_a_match_limit_error_at_compile_time() -> None:
    alternatives = " | ".join(f'"{i}" x' for i in range(30))
    grammar = Grammar.from_gbnf(f'root ::= x\nx ::= ({alternatives})?  "z"')
    engine = native_engine(core(), grammar, None)  # fine: 30 stacks
    assert len(engine.stacks(engine.initial)) == 31
    with pytest.raises(core().LimitError):
        core().Engine([3, 0], [97, 0], [0, 2], [0], 0, None, max_stacks=0)
    ten_ways = "root ::= x\nx ::= " + " | ".join(f'"{i}"' for i in range(10))
    with pytest.raises(MatchLimitError):
        native_engine(core(), Grammar.from_gbnf(ten_ways), None, max_stacks=5)


def test_unused_empty_token_ids_are_refused_exactly_as_the_mask_forbids_them() -> None:
    vocab = small_vocab()
    empty = vocab.token_bytes.index(b"")
    assert not vocab.is_text(empty)
    for gbnf, allowed in (("root ::= [a-z]*", False), ('root ::= !<[3]> "x"', True), (f"root ::= <[{empty}]>", True)):
        matcher = native_matcher(gbnf, vocab)
        assert bool(mask_of(matcher)[empty]) == allowed
        assert matcher.is_token_allowed(empty) == allowed
        assert matcher.accept_token(empty) == allowed


# ---- bad arguments --------------------------------------------------------------------------------------------------
def test_out_of_range_token_ids_are_refused_without_changing_the_state() -> None:
    vocab = small_vocab()
    matcher = native_matcher("root ::= [a-z]+", vocab)
    for token in (-1, vocab.size, 2**40, 2**70, -(2**70)):
        assert not matcher.accept_token(token)
        assert not matcher.is_token_allowed(token)
    assert matcher.accept_string("ab") and not matcher.is_error()


def test_rollback_counts_outside_the_history_are_value_errors() -> None:
    vocab = small_vocab()
    matcher = native_matcher("root ::= [a-z]+", vocab, max_rollback_tokens=16)
    a = vocab.token_bytes.index(b"a")
    for _ in range(20):
        assert matcher.accept_token(a)
    with pytest.raises(MatcherError, match="cannot roll back"):
        matcher.rollback(17)
    with pytest.raises(MatcherError, match="cannot roll back"):
        matcher.rollback(-1)
    matcher.rollback(16)
    with pytest.raises(MatcherError):
        matcher.rollback(1)
    raw = core().Matcher(native_engine(core(), Grammar.from_gbnf("root ::= [a-z]+"), small_vocab()))
    with pytest.raises(ValueError, match="cannot roll back"):
        raw.rollback(1)
    assert matcher.accept_token(a)


@pytest.mark.parametrize(
    ("buffer", "index", "error"),
    [
        (np.zeros((1, 12), dtype=np.int64), 0, MatcherError),
        (np.zeros((1, 12), dtype=np.float32), 0, MatcherError),
        (np.zeros((1, 1, 12), dtype=np.int32), 0, MatcherError),
        (np.zeros(12, dtype=np.int32), 0, MatcherError),
        (np.zeros((2, 12), dtype=np.int32), 2, MatcherError),
        (np.zeros((2, 12), dtype=np.int32), -1, MatcherError),
        (np.zeros((0, 12), dtype=np.int32), 0, MatcherError),
        ([[0] * 12], 0, ArgumentTypeError),
    ],
)
def test_wrong_bitmask_buffers_are_typed_errors(buffer: Any, index: int, error: type[Exception]) -> None:
    matcher = native_matcher("root ::= [a-z]+", small_vocab())
    with pytest.raises(error):
        matcher.fill_next_token_bitmask(buffer, index)


@pytest.mark.parametrize(
    ("buffer", "index", "error"),
    [
        (np.zeros((1, 12), dtype=np.int64), 0, TypeError),
        (np.zeros((1, 12), dtype=np.uint8), 0, TypeError),
        (np.zeros((1, 1, 12), dtype=np.int32), 0, TypeError),
        (np.zeros((2, 12), dtype=np.int32), 2, IndexError),
        (np.zeros((2, 12), dtype=np.int32), -1, IndexError),
        (np.zeros((2, 24), dtype=np.int32)[:, ::2], 0, ValueError),
        (np.zeros((0, 12), dtype=np.int32), 0, IndexError),
        ([[0] * 12], 0, TypeError),
    ],
)
def test_the_core_checks_buffers_itself(buffer: Any, index: int, error: type[Exception]) -> None:
    engine = native_engine(core(), Grammar.from_gbnf("root ::= [a-z]+"), small_vocab())
    raw = core().Matcher(engine)
    with pytest.raises(error):
        raw.fill(buffer, index)
    with pytest.raises(error):
        core().fill_batch([raw], buffer, [index])


def test_read_only_buffers_are_refused() -> None:
    matcher = native_matcher("root ::= [a-z]+", small_vocab())
    buffer = allocate_token_bitmask(1, small_vocab().size)
    buffer.flags.writeable = False
    with pytest.raises(MatcherError):
        matcher.fill_next_token_bitmask(buffer)
    raw = core().Matcher(native_engine(core(), Grammar.from_gbnf("root ::= [a-z]+"), small_vocab()))
    with pytest.raises(TypeError):
        raw.fill(buffer, 0)


def test_wider_narrower_and_strided_rows_are_filled_like_the_oracle() -> None:
    vocab = small_vocab()
    matcher = native_matcher("root ::= [a-z]+", vocab)
    oracle = OracleMatcher("root ::= [a-z]+", vocab)
    n_words = (vocab.size + 31) // 32
    for width in (n_words + 3, n_words - 2, 1):
        ours, theirs = np.full((1, width), -1, dtype=np.int32), np.full((1, width), -1, dtype=np.int32)
        assert matcher.fill_next_token_bitmask(ours) == oracle.fill_next_token_bitmask(theirs)
        assert (ours == theirs).all()
    ours, theirs = np.full((2, 2 * n_words), -1, np.int32), np.full((2, 2 * n_words), -1, np.int32)
    matcher.fill_next_token_bitmask(ours[:, ::2], 1)
    oracle.fill_next_token_bitmask(theirs[:, ::2], 1)
    assert (ours == theirs).all()


def test_torch_int32_tensors_are_filled_in_place_and_other_dtypes_refused() -> None:
    torch = pytest.importorskip("torch")
    vocab = small_vocab()
    matcher = native_matcher("root ::= [a-z]+", vocab)
    tensor = torch.full((2, (vocab.size + 31) // 32), -1, dtype=torch.int32)
    matcher.fill_next_token_bitmask(tensor, 1)
    assert (tensor[0] == -1).all()
    assert (bitmask_to_bool(tensor[1].numpy(), vocab.size) == mask_of(matcher)).all()
    with pytest.raises(MatcherError):
        matcher.fill_next_token_bitmask(torch.zeros((1, 12), dtype=torch.int64))


@pytest.mark.parametrize(
    ("kinds", "values", "starts", "nullable", "root"),
    [
        ([3, 0], [97], [0, 2], [0], 0),  # values too short
        ([12, 0], [0, 0], [0, 2], [0], 0),  # unknown kind
        ([2, 0], [5, 0], [0, 2], [0], 0),  # rule reference out of range
        ([3, 3], [97, 98], [0, 2], [0], 0),  # rule does not end with END
        ([3, 0], [97, 0], [0, 2], [0], 1),  # root out of range
        ([3, 0], [-5, 0], [0, 2], [0], 0),  # code point out of range
        ([6, 0], [97, 0], [0, 2], [0], 0),  # class member outside a class
        ([3, 0], [97, 0], [0, 3], [0], 0),  # rule_start past the end
        ([], [], [0], [], 0),  # no rule
    ],
)
def test_bad_element_tables_are_value_errors(
    kinds: list[int], values: list[int], starts: list[int], nullable: list[int], root: int
) -> None:
    with pytest.raises(ValueError):
        core().Engine(kinds, values, starts, nullable, root, None)


def test_bad_states_partials_and_vocabularies_are_value_errors() -> None:
    engine = native_engine(core(), Grammar.from_gbnf('root ::= "é"'), small_vocab())
    buffer = allocate_token_bitmask(1, small_vocab().size)
    with pytest.raises(ValueError):
        engine.step_char(12345, 97)
    with pytest.raises(ValueError):
        engine.step_char(engine.initial, 0x110000)
    for partial in ((0, 0, 2), (3, 2, 2), (1, 1, 5), (1 << 22, 1, 2)):
        with pytest.raises(ValueError):
            engine.feed_bytes(engine.initial, partial, b"\xa9")
        with pytest.raises(ValueError):
            engine.fill_state(engine.initial, partial, buffer)
    assert engine.feed_bytes(engine.initial, (3, 1, 2), b"\xa9")[1] is None
    with pytest.raises(ValueError):
        core().VocabTrie([b"a"], b"\x01", [5], [])
    with pytest.raises(ValueError):
        core().VocabTrie([b"a", b"b"], b"\x01", [], [])
    with pytest.raises(TypeError):
        core().VocabTrie(["a"], b"\x01", [], [])
    with pytest.raises(ValueError):
        core().Matcher(native_engine(core(), Grammar.from_gbnf('root ::= "a"'), None))


def test_a_vocabulary_of_one_token_and_a_huge_id_in_a_token_reference() -> None:
    vocab = Vocabulary.from_tokens([b"a"])
    matcher = native_matcher('root ::= <[99999]> | !<[99999]> | "a"', vocab)
    assert mask_of(matcher).tolist() == [True]
    assert matcher.accept_token(0)


def test_a_repetition_of_long_units_builds_and_matches_like_the_oracle() -> None:
    # Found by scripts/fuzz_native.py: when one unit outlasts any token, the last link of the chain (which has no
    # next link) was mapped onto the unit's loop and the core refused its own tables.
    grammar = Grammar.from_gbnf('root ::= ("abcdefghijklmnop"){1,3} "." | r\nr ::= "x" r{2,5} "y" | "z"')
    for seed in range(3):
        walk_and_compare(grammar, small_vocab(), seed, steps=8)


def test_an_error_set_from_outside_is_sticky_like_the_cores_own() -> None:
    """Servers put a request whose grammar failed into the error state by setting ``matcher.error``: only EOS is
    then allowed, every token is refused, and reset or a rollback of one token clears it — as in Python."""
    vocab = small_vocab()
    m = native_matcher('root ::= "ab" | "abc"', vocab)
    assert m.accept_string("a") and not m.is_error()
    m.error = "grammar for this request failed"
    assert m.is_error() and m.error == "grammar for this request failed" and not m.can_end()
    bitmask = allocate_token_bitmask(1, vocab.size)
    assert m.fill_next_token_bitmask(bitmask)
    assert np.flatnonzero(bitmask_to_bool(bitmask[0], vocab.size)).tolist() == [EOS]
    assert m.allowed_token_ids().tolist() == [EOS]
    b = vocab.token_bytes.index(b"b")
    assert not m.is_token_allowed(b) and not m.accept_token(b) and not m.accept_string("b")
    assert m.validate_tokens([b]) == 0 and m.find_jump_forward_string() == ""
    twin = m.fork()
    assert twin.is_error()
    m.reset()
    assert not m.is_error() and m.error is None and m.accept_string("ab") and m.can_end()
    twin.rollback(1)
    assert not twin.is_error() and twin.accept_string("a")
