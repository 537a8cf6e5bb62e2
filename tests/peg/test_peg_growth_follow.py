"""The memo of the fast lane's marker following (``peg._growth._follow``) answers as the walk it replaces."""

from __future__ import annotations

import pytest

from peg import chars, choice, literal, sequence, space, tag
from peg._compile import K_SEQ, K_TAG, compile_program
from peg._growth import _LONGEST_FOLLOW, _follow, _follow_items


def _ops(parser: object) -> list[object]:
    return list(compile_program(parser).ops)  # type: ignore[arg-type]


LONG = sequence(*(literal(f"<m{i}>") for i in range(_LONGEST_FOLLOW + 6)))
MIXED = sequence(
    literal("<a>"), space(), sequence(literal("</b>"), chars("0-9", 1, 3)), choice(literal("x"), literal("y"))
)
TAGGED = sequence(tag("t", sequence(literal("<t>"), literal("</t>"))), literal("<u>"), tag("v", literal("<v>")))


@pytest.mark.parametrize("grammar", [LONG, MIXED, TAGGED], ids=["long", "mixed", "tagged"])
@pytest.mark.parametrize("hidden", [False, True])
def test_memoised_follow_appends_and_answers_as_the_walk(grammar: object, hidden: bool) -> None:
    ops = [op for op in _ops(grammar) if op.kind in (K_SEQ, K_TAG)]  # type: ignore[attr-defined]
    assert ops
    for op in ops:
        for already in (1, 2, 30, _LONGEST_FOLLOW - 5, _LONGEST_FOLLOW - 1):
            for _ in range(2):  # the second call answers from the memo
                walked: list[object] = ["leaf"] * already
                memo: list[object] = ["leaf"] * already
                expected = _follow_items(op, walked, hidden, 0)
                assert _follow(op, memo, hidden, 0) == expected
                assert memo == walked
                assert len(memo) <= _LONGEST_FOLLOW
