"""The matcher calls servers make: accept_tokens, validate_tokens, jump-forward text, torch bitmasks, batch fill,
rollback errors and the error tree."""

from __future__ import annotations

import inspect
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gbnf_backend
from gbnf_backend import (
    GrammarMatcher,
    MatcherError,
    PegchatError,
    Trigger,
    Vocabulary,
    allocate_token_bitmask,
    apply_token_bitmask,
    bitmask_to_bool,
    fill_next_token_bitmasks,
)

EOS = 2
torch = pytest.importorskip("torch")


@cache
def vocab() -> Vocabulary:
    words = [b"{", b"}", b'"', b"name", b":", b" ", b"a", b"b", b"ab", b'{"', b'name"', b"1", b"x", b"\xc3", b"\xa9"]
    return Vocabulary.from_tokens([b"<s>", b"<unk>", b"</s>", *words], eos_token_ids=[EOS], special_token_ids=[0, 1, 2])


def tok(text: bytes) -> int:
    return vocab().token_bytes.index(text, 3)


GRAMMAR = 'root ::= "{" "\\"name\\"" ":" " "? value "}"\nvalue ::= [ab]+ | "1"'


def test_accept_tokens_returns_how_many_were_accepted() -> None:
    matcher = GrammarMatcher(GRAMMAR, vocab())
    draft = [tok(b'{"'), tok(b'name"'), tok(b":"), tok(b"x"), tok(b"a")]
    assert matcher.accept_tokens(draft) == 3
    assert matcher.accept_tokens([tok(b"ab"), tok(b"}"), EOS]) == 3
    assert matcher.is_terminated()
    assert matcher.accept_tokens([tok(b"a")]) == 0


def test_validate_tokens_leaves_the_state_unchanged() -> None:
    matcher = GrammarMatcher(GRAMMAR, vocab())
    draft = [tok(b"{"), tok(b'"'), tok(b"name"), tok(b'"'), tok(b":"), tok(b"1"), tok(b"1")]
    before = matcher.allowed_token_ids().tolist()
    assert matcher.validate_tokens(draft) == 6
    assert matcher.validate_tokens([]) == 0
    assert matcher.allowed_token_ids().tolist() == before
    assert matcher.accept_tokens(draft) == 6  # agrees with accepting them
    assert matcher.validate_tokens([tok(b"}"), EOS, tok(b"a")]) == 2  # nothing after EOS


def test_jump_forward_string_is_the_forced_text() -> None:
    matcher = GrammarMatcher(GRAMMAR, vocab())
    assert matcher.find_jump_forward_string() == '{"name":'
    assert matcher.accept_string('{"name":')
    assert matcher.find_jump_forward_string() == ""  # a space or a value: a choice
    assert matcher.accept_token(tok(b"1"))
    assert matcher.find_jump_forward_string() == "}"
    assert matcher.find_jump_forward_string(max_length=0) == ""
    assert matcher.accept_token(tok(b"}"))
    assert matcher.find_jump_forward_string() == ""  # may end: nothing is forced


def test_jump_forward_string_is_empty_while_awaiting_or_inside_a_character() -> None:
    lazy = GrammarMatcher(GRAMMAR, vocab(), triggers=[Trigger.word("{")])
    assert lazy.find_jump_forward_string() == ""
    assert lazy.accept_token(tok(b"{"))
    assert lazy.find_jump_forward_string() == '"name":'
    accented = GrammarMatcher('root ::= "\\u00e9x"', vocab())
    assert accented.find_jump_forward_string() == "\u00e9x"
    assert accented.accept_token(tok(b"\xc3"))
    assert accented.find_jump_forward_string() == ""


def test_torch_cpu_bitmask_is_filled_in_place_like_numpy() -> None:
    matcher = GrammarMatcher(GRAMMAR, vocab())
    matcher.accept_string('{"name": ')
    words = (vocab().size + 31) // 32
    tensor = torch.full((2, words), -1, dtype=torch.int32)
    array = allocate_token_bitmask(2, vocab().size)
    assert matcher.fill_next_token_bitmask(tensor, 1)
    matcher.fill_next_token_bitmask(array, 1)
    assert np.array_equal(tensor.numpy(), array)
    allowed = bitmask_to_bool(tensor[1], vocab().size)
    assert sorted(np.flatnonzero(allowed).tolist()) == sorted([tok(b"a"), tok(b"b"), tok(b"ab"), tok(b"1")])
    logits = torch.zeros(vocab().size)
    apply_token_bitmask(logits, tensor, 1)
    assert torch.isfinite(logits).sum().item() == 4


def test_batch_fill_accepts_torch_and_unconstrained_rows() -> None:
    first = GrammarMatcher(GRAMMAR, vocab())
    second = GrammarMatcher('root ::= "x"', vocab())
    tensor = torch.zeros((3, (vocab().size + 31) // 32), dtype=torch.int32)
    assert fill_next_token_bitmasks([first, None, second], tensor) is tensor
    assert bitmask_to_bool(tensor[1], vocab().size).all()
    assert np.flatnonzero(bitmask_to_bool(tensor[2], vocab().size)).tolist() == [tok(b"x")]
    with pytest.raises(MatcherError):
        fill_next_token_bitmasks([first, second], tensor[:1])


def test_wrong_bitmasks_are_typed_errors_at_the_call() -> None:
    matcher = GrammarMatcher(GRAMMAR, vocab())
    words = (vocab().size + 31) // 32
    bad = [
        torch.zeros((1, words), dtype=torch.int64),
        np.zeros((1, words), dtype=np.uint8),
        np.zeros(words, dtype=np.int32),
        torch.zeros((words + 2, 3), dtype=torch.int32).t(),  # not contiguous
    ]
    for bitmask in bad:
        with pytest.raises(MatcherError):
            matcher.fill_next_token_bitmask(bitmask)
    with pytest.raises(MatcherError):
        matcher.fill_next_token_bitmask(allocate_token_bitmask(1, vocab().size), 1)
    with pytest.raises(TypeError):
        matcher.fill_next_token_bitmask([[0] * words])
    if torch.cuda.is_available():  # pragma: no cover - CPU machines
        with pytest.raises(MatcherError, match="CPU"):
            matcher.fill_next_token_bitmask(torch.zeros((1, words), dtype=torch.int32, device="cuda"))


def test_wider_rows_clear_the_padding_and_narrower_rows_take_the_first_words() -> None:
    matcher = GrammarMatcher('root ::= "x"', vocab())
    wide = np.full((1, 4), -1, dtype=np.int32)
    matcher.fill_next_token_bitmask(wide)
    assert np.flatnonzero(bitmask_to_bool(wide[0], 128)).tolist() == [tok(b"x")]


def test_rollback_beyond_the_history_is_a_typed_error_and_changes_nothing() -> None:
    matcher = GrammarMatcher(GRAMMAR, vocab())
    assert matcher.accept_tokens([tok(b"{"), tok(b'"')]) == 2
    for count in (3, -1):
        with pytest.raises(MatcherError):
            matcher.rollback(count)
    assert matcher.validate_tokens([tok(b"name")]) == 1
    matcher.rollback(2)
    assert matcher.find_jump_forward_string() == '{"name":'


def test_every_public_error_derives_from_pegchat_error_and_a_builtin() -> None:
    errors = [
        value
        for value in vars(gbnf_backend).values()
        if inspect.isclass(value)
        and issubclass(value, Exception)
        and not issubclass(value, Warning)
        and value.__module__.startswith("gbnf_backend")
    ]
    assert len(errors) >= 9
    builtins = (ValueError, TypeError, RuntimeError, LookupError, OSError)
    for error in errors:
        assert issubclass(error, PegchatError), error
        assert error is PegchatError or issubclass(error, builtins), error


OPERATIONS = st.lists(
    st.one_of(
        st.tuples(st.just("accept"), st.integers(-3, 25)),
        st.tuples(st.just("validate"), st.lists(st.integers(-1, 20), max_size=6)),
        st.tuples(st.just("rollback"), st.integers(-1, 4)),
        st.tuples(st.just("fork"), st.just(0)),
        st.tuples(st.just("jump"), st.just(0)),
    ),
    max_size=25,
)


@settings(max_examples=120, deadline=None)
@given(operations=OPERATIONS)
def test_random_matcher_calls_keep_the_laws(operations: list[tuple[str, object]]) -> None:
    matcher = GrammarMatcher(GRAMMAR, vocab(), max_rollback_tokens=4)
    accepted = 0
    for name, argument in operations:
        if name == "accept":
            assert isinstance(argument, int)
            allowed = matcher.is_token_allowed(argument)
            in_mask = 0 <= argument < vocab().size and argument in matcher.allowed_token_ids().tolist()
            assert allowed == in_mask
            assert matcher.accept_token(argument) == allowed
            accepted += allowed
        elif name == "validate":
            assert isinstance(argument, list)
            count = matcher.validate_tokens(argument)
            twin = matcher.fork()
            assert twin.accept_tokens(argument) == count
        elif name == "rollback":
            assert isinstance(argument, int)
            kept = min(accepted, 16)
            if 0 <= argument <= kept:
                matcher.rollback(argument)
                accepted -= argument
            else:
                with pytest.raises(MatcherError):
                    matcher.rollback(argument)
        elif name == "fork":
            matcher = matcher.fork()
        else:
            forced = matcher.find_jump_forward_string()
            if forced:
                assert matcher.fork().accept_string(forced)
    assert not matcher.is_error()
