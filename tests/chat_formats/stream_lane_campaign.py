"""A time-bounded campaign: the stream's fast lane sends exactly the deltas of the ordinary path, reporting counts.

Run: ``nice -n 19 python -m tests.chat_formats.stream_lane_campaign --minutes 5 --seed 1`` (from the repository
root). Each case: a random sample of a random format (ours and the corpus', as ``test_stream_fast_lane.py``
uses), with zero to three insertions — one of the format's markers, the start of one, a quote, a backslash, a
bracket run or a piece of the text copied elsewhere — fed in random chunks or one character at a time, once with
the fast lane and once without; the deltas must be equal and add up to ``parse`` of the text. Prints counts per
format and the first mismatches as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from typing import Any

import chat_formats.stream as stream_module
from chat_formats import ChatFormat, get_format
from tests.chat_formats.support import as_message_dict, stream_deltas
from tests.chat_formats.test_stream_fast_lane import CASES, SALT


def _insert(rng: random.Random, text: str, markers: list[str]) -> str:
    """``text`` with one random insertion (see the module docstring)."""
    choice = rng.randrange(6)
    if choice == 0 and markers:
        piece = rng.choice(markers)
    elif choice == 1 and markers:
        marker = rng.choice(markers)
        piece = marker[: rng.randint(1, max(1, len(marker) - 1))]
    elif choice == 2:
        piece = '"'
    elif choice == 3:
        piece = "\\"
    elif choice == 4:
        piece = rng.choice("[]{}") * rng.randint(1, 6)
    else:
        start = rng.randint(0, len(text))
        piece = text[start : start + rng.randint(1, 16)]
    at = rng.randint(0, len(text))
    return text[:at] + piece + text[at:]


def _pieces(rng: random.Random, text: str) -> list[str]:
    if rng.random() < 0.3:
        return list(text)
    out, i = [], 0
    while i < len(text):
        step = rng.choice((1, 2, 3, 4, 4, 5, 8, 16))
        out.append(text[i : i + step])
        i += step
    return out


def main() -> None:
    """Run the campaign for ``--minutes`` and print the counts."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--minutes", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    stream_module.new_salt = lambda: SALT  # one salt: the generated ids of both paths and of parse agree
    rng = random.Random(args.seed)
    formats: dict[tuple[str, str], ChatFormat] = {}
    cases = Counter[str]()
    mismatches = Counter[str]()
    examples: list[dict[str, Any]] = []
    deadline = time.monotonic() + args.minutes * 60
    while time.monotonic() < deadline:
        name, text, options = rng.choice(CASES)
        key = (name, json.dumps(options, sort_keys=True, default=str))
        fmt = formats.get(key)
        if fmt is None:
            fmt = formats[key] = get_format(name, **options)
        markers = [t for t in fmt.definition.preserved_tokens if t]
        for _ in range(rng.randint(0, 3)):
            text = _insert(rng, text, markers)
        pieces = _pieces(rng, text)
        cases[name] += 1
        fast = stream_deltas(fmt, pieces, fast=True)
        slow = stream_deltas(fmt, pieces, fast=False)
        parsed = as_message_dict(fmt.parse(text, salt=SALT))
        if fast != slow or fast[1] != parsed:
            mismatches[name] += 1
            if len(examples) < 10:
                examples.append({"format": name, "pieces": pieces, "same_deltas": fast[0] == slow[0]})
    report = {
        "seed": args.seed,
        "minutes": args.minutes,
        "cases": sum(cases.values()),
        "formats": len(cases),
        "mismatches": sum(mismatches.values()),
        "mismatches_by_format": dict(mismatches),
        "examples": examples,
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
