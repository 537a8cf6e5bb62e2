"""JSON Schema coverage on JSONSchemaBench: pegchat's converter, and llguidance in the same run if installed.

For each category of ``../shared/corpora/jsonschemabench`` (or ``--corpus``) it prints the share of schemas
that compile (strict mode), compile time median/p99 (pegchat: conversion + ``Grammar.from_gbnf``;
llguidance: ``LLMatcher`` construction over a byte tokenizer), and, over the compiled schemas, the valid
test instances accepted and the invalid ones accepted. An instance is accepted when its ``json.dumps``
(default or compact separators) is; valid instances are first re-serialised in the schema's property order
(both engines see the same text), invalid ones are tried in both their own and that order.

Usage: ``python benchmarks/schema_coverage.py [--limit N] [--category NAME ...] [--no-llguidance] [--slow MS]``
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gbnf_backend._schema_order import order_like_schema
from gbnf_backend.errors import GrammarError, SchemaError
from gbnf_backend.grammar import Grammar
from gbnf_backend.json_schema import convert_json_schema

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "jsonschemabench"
Matcher = Callable[[str], bool]


def _texts(value: Any) -> list[str]:
    return [json.dumps(value), json.dumps(value, separators=(",", ":"))]


def compile_pegchat(schema: Any) -> Matcher | None:
    try:
        grammar = Grammar.from_gbnf(convert_json_schema(schema).to_gbnf())
    except (SchemaError, GrammarError):
        return None
    return grammar.matches


class _ByteTokens:
    """A 256-byte vocabulary plus EOS, the smallest tokenizer llguidance accepts."""

    eos_token_id = 256
    bos_token_id = None
    tokens: ClassVar[list[bytes]] = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids: ClassVar[list[int]] = [256]

    def __call__(self, text: bytes) -> list[int]:
        return list(text)


def llguidance_compiler() -> Callable[[Any], Matcher | None] | None:
    """Return a compile function for llguidance (strict JSON compiler), or None if not installed."""
    try:
        import llguidance
    except ImportError:
        return None
    tok = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokens()), slices=[])

    def compile_llg(schema: Any) -> Matcher | None:
        try:
            grammar = llguidance.LLMatcher.grammar_from_json_schema(schema)
        except ValueError:
            return None
        matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
        if matcher.is_error():
            return None

        def matches(text: str) -> bool:
            m = matcher.deep_copy()
            return bool(m.consume_tokens(list(text.encode()))) and m.is_accepting()

        return matches

    return compile_llg


def run(
    corpus: Path,
    categories: list[str],
    limit: int | None,
    engines: dict[str, Callable[[Any], Matcher | None]],
    slow_ms: float | None = None,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Measure every engine on every category; returns {category: {engine: figures}}.

    With ``slow_ms``, every compile slower than that is reported on stderr (engine, file, milliseconds).
    """
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for category in categories:
        files = sorted((corpus / category).glob("*.json"))[:limit]
        per: dict[str, dict[str, Any]] = {}
        for name, compile_fn in engines.items():
            times: list[float] = []
            compiled = valid_ok = valid_n = invalid_acc = invalid_n = 0
            for path in files:
                entry = json.loads(path.read_text())
                schema = entry["schema"]
                t0 = time.perf_counter()
                matcher = compile_fn(schema)
                times.append((time.perf_counter() - t0) * 1000)
                if slow_ms is not None and times[-1] > slow_ms:
                    print(f"slow compile: {name} {category}/{path.name} {times[-1]:.0f} ms", file=sys.stderr)
                if matcher is None:
                    continue
                compiled += 1
                for test in entry["tests"]:
                    data = test["data"]
                    if test["valid"]:
                        valid_n += 1
                        valid_ok += any(matcher(t) for t in _texts(order_like_schema(schema, data)))
                    else:
                        invalid_n += 1
                        candidates = _texts(data) + _texts(order_like_schema(schema, data))
                        invalid_acc += any(matcher(t) for t in candidates)
            times.sort()
            per[name] = {
                "schemas": len(files),
                "compiled": compiled,
                "p50_ms": statistics.median(times) if times else 0.0,
                "p99_ms": times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0.0,
                "valid_ok": valid_ok,
                "valid_n": valid_n,
                "invalid_acc": invalid_acc,
                "invalid_n": invalid_n,
            }
        results[category] = per
    return results


def report(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Markdown table of the figures, one row per (category, engine), plus totals."""
    lines = [
        "| category | engine | compiled | compile p50 / p99 ms | valid accepted | invalid accepted |",
        "|---|---|---|---|---|---|",
    ]
    totals: dict[str, list[int]] = {}
    for category, per in results.items():
        for engine, f in per.items():
            t = totals.setdefault(engine, [0, 0, 0, 0, 0, 0])
            for i, k in enumerate(("schemas", "compiled", "valid_ok", "valid_n", "invalid_acc", "invalid_n")):
                t[i] += f[k]
            share = 100 * f["compiled"] / max(f["schemas"], 1)
            lines.append(
                f"| {category} | {engine} | {f['compiled']}/{f['schemas']} ({share:.1f} %) | "
                f"{f['p50_ms']:.2f} / {f['p99_ms']:.1f} | {f['valid_ok']}/{f['valid_n']} | "
                f"{f['invalid_acc']}/{f['invalid_n']} |"
            )
    for engine, t in totals.items():
        lines.append(
            f"| **total** | {engine} | {t[1]}/{t[0]} ({100 * t[1] / max(t[0], 1):.1f} %) | | "
            f"{t[2]}/{t[3]} ({100 * t[2] / max(t[3], 1):.1f} %) | {t[4]}/{t[5]} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--category", action="append", help="category folder (repeatable; default all)")
    parser.add_argument("--limit", type=int, default=None, help="at most N schemas per category")
    parser.add_argument("--no-llguidance", action="store_true")
    parser.add_argument("--slow", type=float, default=None, metavar="MS", help="report compiles slower than MS")
    args = parser.parse_args(argv)
    categories = args.category or sorted(p.name for p in args.corpus.iterdir() if p.is_dir())
    engines: dict[str, Callable[[Any], Matcher | None]] = {"pegchat": compile_pegchat}
    llg = None if args.no_llguidance else llguidance_compiler()
    if llg is not None:
        engines["llguidance"] = llg
    print(report(run(args.corpus, categories, args.limit, engines, args.slow)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
