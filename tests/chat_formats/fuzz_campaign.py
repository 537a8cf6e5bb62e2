"""A time-bounded fuzz campaign of the two output laws (see ``test_laws_fuzz.py``), reporting counts.

Run: ``nice -n 19 python -m tests.chat_formats.fuzz_campaign --minutes 10`` (from the repository root). For each
round and each format: a random sample (ours and the corpus') damaged as the hypothesis test does — a format
marker duplicated or cut short, one to three unique markers inserted anywhere, sometimes the end cut off — then
law (a) (every inserted marker reappears in the message) and law (b) (a one-character stream and a random
chunking both give the final parse). Prints per-format counts and the first failures of each kind as JSON.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections import Counter
from typing import Any

from chat_formats import available_formats, get_format
from tests.chat_formats.test_laws_fuzz import _OUTPUTS, MARKERS, _as_tuple, _fields, _streamed


def damage(rng: random.Random, name: str) -> tuple[str, dict[str, Any], list[str]]:
    """One damaged sample of ``name``: the text, its options and the markers it holds."""
    text, options = rng.choice(_OUTPUTS[name])
    tokens = [t for t in get_format(name, **options).definition.preserved_tokens if t in text]
    if tokens and rng.random() < 0.5:
        token = rng.choice(tokens)
        if rng.random() < 0.5:
            at = rng.randint(0, len(text))
            text = text[:at] + token + text[at:]
        else:
            start = text.find(token)
            keep = rng.randint(1, max(1, len(token) - 1))
            text = text[: start + keep] + text[start + len(token) :]
    for marker in MARKERS[: rng.randint(1, len(MARKERS))]:
        at = rng.randint(0, len(text))
        pad = rng.choice(["", " ", "\n"])
        text = text[:at] + pad + marker + pad + text[at:]
    if rng.random() < 0.25:
        text = text[: rng.randint(0, len(text))]
    return text, options, [m for m in MARKERS if m in text]


def main() -> None:
    """Run rounds over every format until the time is up; print the counts."""
    ap = argparse.ArgumentParser(description="Fuzz the two output laws of every chat format for a while.")
    ap.add_argument("--minutes", type=float, default=10.0, help="how long to run")
    ap.add_argument("--seed", type=int, default=0, help="random seed")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    cases: Counter[str] = Counter()
    lost: Counter[str] = Counter()
    diverged: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    deadline = time.monotonic() + args.minutes * 60
    names = available_formats()
    while time.monotonic() < deadline:
        for name in names:
            text, options, markers = damage(rng, name)
            fmt = get_format(name, **options)
            cases[name] += 1
            fields = _fields(fmt.parse(text))
            if any(m not in fields for m in markers):
                lost[name] += 1
                if len(examples) < 20:
                    examples.append({"law": "a", "format": name, "text": text})
            cuts = sorted({0, len(text), *(rng.randint(0, len(text)) for _ in range(rng.randint(0, 6)))})
            for chunks in (list(text), [text[a:b] for a, b in itertools.pairwise(cuts)]):
                streamed, parsed = _streamed(fmt, chunks)
                if _as_tuple(streamed) != _as_tuple(parsed):
                    diverged[name] += 1
                    if len(examples) < 20:
                        examples.append({"law": "b", "format": name, "text": text, "chunks": len(chunks)})
                    break
    report = {
        "cases": sum(cases.values()),
        "text lost (law a)": sum(lost.values()),
        "stream != parse (law b)": sum(diverged.values()),
        "per format": {n: [cases[n], lost[n], diverged[n]] for n in names},
        "first failures": examples,
    }
    print(json.dumps(report, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
