"""JSON Schema coverage: pegchat's converter (strict and lenient) and the peers installed, in one run.

Three measurements, printed as Markdown:

1. **JSONSchemaBench** (``--corpus``, default the shared corpus, else the in-repo subset ``tests/data``): per engine
   and category, the share of schemas that compile, compile time median/p99 (pegchat: conversion +
   ``SchemaGrammar.to_grammar``, i.e. ``Grammar.from_gbnf`` of its text; llguidance: ``LLMatcher`` over a byte
   tokenizer; xgrammar: ``Grammar.from_json_schema``; failed compiles count too) in CPU time of this process
   (``time.process_time``: on a shared machine wall time mostly measures the neighbours; ``--wall`` measures wall
   time instead), and over the compiled schemas the valid test instances accepted and the invalid ones accepted. A
   valid instance counts as accepted in its own member order, or re-serialised by ``order_like_schema`` (the same
   JSON value with members in the order pegchat's grammar fixes; both counts are printed), with default or compact
   separators (every engine sees the same texts); an invalid one is tried in both orders. ``pegchat-lenient`` is
   ``strict=False``; the run also checks that every schema compiled only leniently came with at least one weakening
   warning.
2. **JSON-Schema-Test-Suite draft 2020-12** (``--suite``): per engine, groups that compile and the test instances
   accepted (remote ``$ref`` served from the suite's ``remotes``).
3. ``{"type": "string", "maxLength": 65535}``: pegchat compile time (median of 5).

llama.cpp is measured only if ``llama_cpp`` (llama-cpp-python) is importable; it is not installed here because it
builds llama.cpp from source (a long compile). Usage::

    python benchmarks/schema_coverage.py [--corpus DIR] [--suite DIR] [--category NAME ...] [--limit N]
                                         [--engines pegchat,pegchat-lenient,llguidance,xgrammar] [--slow MS]
                                         [--wall]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from gbnf_backend import order_like_schema
from gbnf_backend.errors import GrammarError, SchemaError
from gbnf_backend.schema.json_schema import convert_json_schema

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("PEGCHAT_SHARED", REPO.parent / "shared"))
Matcher = Callable[[str], bool]
Compiler = Callable[[Any], Matcher | None]
SUITE_REMOTE = "http://localhost:1234/"


def _default(sub: str) -> Path:
    """The shared corpus folder if this checkout has one, else the in-repo subset."""
    shared = SHARED / "corpora" / sub
    return shared if shared.is_dir() else REPO / "tests" / "data" / sub


def _texts(value: Any) -> list[str]:
    return [json.dumps(value), json.dumps(value, separators=(",", ":"))]


# --- engines ---------------------------------------------------------------------------------------------------


class PegchatEngine:
    """pegchat's converter; ``warned`` records, per schema compiled only leniently, whether it warned."""

    def __init__(self, *, strict: bool, resolver: Callable[[str], Any] | None = None) -> None:
        self.strict = strict
        self.resolver = resolver
        self.lenient_only = 0
        self.lenient_only_warned = 0

    def __call__(self, schema: Any) -> Matcher | None:
        try:
            result = convert_json_schema(schema, strict=self.strict, resolver=self.resolver)
            grammar = result.to_grammar()
        except (SchemaError, GrammarError):
            return None
        if not self.strict:
            try:
                convert_json_schema(schema, strict=True, resolver=self.resolver)
            except SchemaError:
                self.lenient_only += 1
                self.lenient_only_warned += bool(result.warnings)
        return grammar.matches


class _ByteTokens:
    """A 256-byte vocabulary plus EOS, the smallest tokenizer llguidance accepts."""

    eos_token_id = 256
    bos_token_id = None
    tokens: ClassVar[list[bytes]] = [bytes([i]) for i in range(256)] + [b"<eos>"]
    special_token_ids: ClassVar[list[int]] = [256]

    def __call__(self, text: bytes) -> list[int]:
        return list(text)


def llguidance_compiler() -> Compiler | None:
    """A compile function for llguidance (its JSON compiler, defaults), or None if not installed."""
    try:
        import llguidance
    except ImportError:
        return None
    tok = llguidance.LLTokenizer(llguidance.TokenizerWrapper(_ByteTokens()), slices=[])

    def compile_llg(schema: Any) -> Matcher | None:
        try:
            grammar = llguidance.LLMatcher.grammar_from_json_schema(schema)
        except (ValueError, TypeError):
            return None
        matcher = llguidance.LLMatcher(tok, grammar, log_level=0)
        if matcher.is_error():
            return None

        def matches(text: str) -> bool:
            m = matcher.deep_copy()
            return bool(m.consume_tokens(list(text.encode()))) and m.is_accepting()

        return matches

    return compile_llg


def xgrammar_compiler() -> Compiler | None:
    """A compile function for xgrammar (``Grammar.from_json_schema``, any whitespace), or None if not installed."""
    try:
        import xgrammar
        from xgrammar.testing import _is_grammar_accept_string
    except ImportError:
        return None

    def compile_xgr(schema: Any) -> Matcher | None:
        try:
            grammar = xgrammar.Grammar.from_json_schema(json.dumps(schema), any_whitespace=True)
        except Exception:  # xgrammar raises RuntimeError/ValueError/its own types on unsupported schemas
            return None

        def matches(text: str) -> bool:
            try:
                return bool(_is_grammar_accept_string(grammar, text))
            except Exception:
                return False

        return matches

    return compile_xgr


# --- JSONSchemaBench -------------------------------------------------------------------------------------------


def run_bench(
    corpus: Path,
    categories: list[str],
    limit: int | None,
    engines: dict[str, Compiler],
    slow_ms: float | None = None,
    misses: list[dict[str, Any]] | None = None,
    clock: Callable[[], float] = time.process_time,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Measure every engine on every category; returns {category: {engine: figures}}.

    A valid instance counts as accepted in its own member order (``valid_raw``) or re-serialised with
    :func:`order_like_schema` (``valid_ok``: the same JSON value). Valid instances refused both ways are
    appended to ``misses`` when given.
    """
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for category in categories:
        files = sorted((corpus / category).glob("*.json"))[:limit]
        entries = [json.loads(p.read_text()) for p in files]
        per: dict[str, dict[str, Any]] = {}
        for name, compile_fn in engines.items():
            times: list[float] = []
            compiled = valid_ok = valid_raw = valid_n = invalid_acc = invalid_n = 0
            for path, entry in zip(files, entries, strict=True):
                schema = entry["schema"]
                t0 = clock()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    matcher = compile_fn(schema)
                times.append((clock() - t0) * 1000)
                if slow_ms is not None and times[-1] > slow_ms:
                    print(f"slow compile: {name} {category}/{path.name} {times[-1]:.0f} ms", file=sys.stderr)
                if matcher is None:
                    continue
                compiled += 1
                for test in entry["tests"]:
                    data = test["data"]
                    if test["valid"]:
                        valid_n += 1
                        raw = any(matcher(t) for t in _texts(data))
                        valid_raw += raw
                        ok = raw or any(matcher(t) for t in _texts(order_like_schema(schema, data)))
                        valid_ok += ok
                        if not ok and misses is not None:
                            misses.append({"engine": name, "category": category, "file": path.name, "data": data})
                    else:
                        invalid_n += 1
                        candidates = _texts(data) + _texts(order_like_schema(schema, data))
                        invalid_acc += any(matcher(t) for t in candidates)
            times.sort()
            per[name] = {
                "schemas": len(files),
                "compiled": compiled,
                "times": times,
                "valid_ok": valid_ok,
                "valid_raw": valid_raw,
                "valid_n": valid_n,
                "invalid_acc": invalid_acc,
                "invalid_n": invalid_n,
            }
        results[category] = per
        # Progress on stderr (a full run takes tens of minutes on a loaded machine).
        rows = report_bench({category: per}).split("\n")[2 : 2 + len(per)]
        print("\n".join(rows), file=sys.stderr, flush=True)
    return results


def _p(times: list[float], q: float) -> float:
    return times[min(len(times) - 1, int(len(times) * q))] if times else 0.0


def report_bench(results: dict[str, dict[str, dict[str, Any]]]) -> str:
    """Markdown: one row per (category, engine), then a total per engine."""
    lines = [
        "| category | engine | compiled | compile p50 / p99 ms | valid accepted (own order; reordered) "
        "| invalid accepted |",
        "|---|---|---|---|---|---|",
    ]
    totals: dict[str, dict[str, Any]] = {}
    for category, per in results.items():
        for engine, f in per.items():
            t = totals.setdefault(engine, {"times": []})
            for k in ("schemas", "compiled", "valid_ok", "valid_raw", "valid_n", "invalid_acc", "invalid_n"):
                t[k] = t.get(k, 0) + f[k]
            t["times"] = t["times"] + f["times"]
            share = 100 * f["compiled"] / max(f["schemas"], 1)
            times = f["times"]
            lines.append(
                f"| {category} | {engine} | {f['compiled']}/{f['schemas']} ({share:.1f} %) | "
                f"{statistics.median(times) if times else 0:.2f} / {_p(times, 0.99):.1f} | "
                f"{f['valid_raw']}; {f['valid_ok']}/{f['valid_n']} | {f['invalid_acc']}/{f['invalid_n']} |"
            )
    for engine, t in totals.items():
        times = sorted(t["times"])
        lines.append(
            f"| **total** | {engine} | {t['compiled']}/{t['schemas']} "
            f"({100 * t['compiled'] / max(t['schemas'], 1):.1f} %)"
            f" | {statistics.median(times) if times else 0:.2f} / {_p(times, 0.99):.1f} | "
            f"{t['valid_raw']} ({100 * t['valid_raw'] / max(t['valid_n'], 1):.2f} %); "
            f"{t['valid_ok']}/{t['valid_n']} ({100 * t['valid_ok'] / max(t['valid_n'], 1):.2f} %) | "
            f"{t['invalid_acc']}/{t['invalid_n']} |"
        )
    return "\n".join(lines)


# --- JSON-Schema-Test-Suite ------------------------------------------------------------------------------------


def suite_resolver(suite: Path) -> Callable[[str], Any]:
    """Serve the suite's remotes at http://localhost:1234/ (as the suite expects)."""

    def resolve(uri: str) -> Any:
        if not uri.startswith(SUITE_REMOTE):
            raise LookupError(uri)
        return json.loads((suite / "remotes" / uri[len(SUITE_REMOTE) :]).read_text())

    return resolve


def run_suite(suite: Path, engines: dict[str, Compiler]) -> dict[str, dict[str, int]]:
    """Per engine: groups, compiled groups, valid/invalid tests accepted (draft 2020-12, optional included)."""
    groups = []
    for path in sorted((suite / "draft2020-12").rglob("*.json")):
        groups.extend(json.loads(path.read_text()))
    out: dict[str, dict[str, int]] = {}
    for name, compile_fn in engines.items():
        f = dict.fromkeys(("groups", "compiled", "valid_ok", "valid_n", "invalid_acc", "invalid_n"), 0)
        for group in groups:
            f["groups"] += 1
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                matcher = compile_fn(group["schema"])
            if matcher is None:
                continue
            f["compiled"] += 1
            for test in group["tests"]:
                texts = _texts(test["data"]) + _texts(order_like_schema(group["schema"], test["data"]))
                accepted = any(matcher(t) for t in texts)
                if test["valid"]:
                    f["valid_n"] += 1
                    f["valid_ok"] += accepted
                else:
                    f["invalid_n"] += 1
                    f["invalid_acc"] += accepted
        out[name] = f
    return out


def report_suite(results: dict[str, dict[str, int]]) -> str:
    lines = ["| engine | groups compiled | valid accepted | invalid accepted |", "|---|---|---|---|"]
    for engine, f in results.items():
        lines.append(
            f"| {engine} | {f['compiled']}/{f['groups']} ({100 * f['compiled'] / max(f['groups'], 1):.1f} %) | "
            f"{f['valid_ok']}/{f['valid_n']} | {f['invalid_acc']}/{f['invalid_n']} |"
        )
    return "\n".join(lines)


def max_length_compile_ms(n: int = 65535, runs: int = 5, clock: Callable[[], float] = time.process_time) -> float:
    """Median milliseconds to convert and load ``{"type": "string", "maxLength": n}``."""
    times = []
    for _ in range(runs):
        t0 = clock()
        convert_json_schema({"type": "string", "maxLength": n}).to_grammar()
        times.append((clock() - t0) * 1000)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--corpus", type=Path, default=_default("jsonschemabench"), help="JSONSchemaBench folder")
    parser.add_argument("--suite", type=Path, default=_default("json-schema-test-suite"), help="JSON-Schema-Test-Suite")
    parser.add_argument("--category", action="append", help="category folder (repeatable; default all)")
    parser.add_argument("--limit", type=int, default=None, help="at most N schemas per category")
    parser.add_argument(
        "--engines", default="pegchat,pegchat-lenient,llguidance,xgrammar", help="comma-separated engines to run"
    )
    parser.add_argument("--no-suite", action="store_true", help="skip the JSON-Schema-Test-Suite")
    parser.add_argument("--misses", type=Path, default=None, help="write refused valid instances (JSON lines)")
    parser.add_argument("--slow", type=float, default=None, metavar="MS", help="report compiles slower than MS")
    parser.add_argument("--wall", action="store_true", help="time compiles by wall clock instead of CPU time")
    args = parser.parse_args(argv)
    clock = time.perf_counter if args.wall else time.process_time
    wanted = args.engines.split(",")
    lenient = PegchatEngine(strict=False)
    available: dict[str, Compiler | None] = {
        "pegchat": PegchatEngine(strict=True),
        "pegchat-lenient": lenient,
        "llguidance": llguidance_compiler() if "llguidance" in wanted else None,
        "xgrammar": xgrammar_compiler() if "xgrammar" in wanted else None,
    }
    engines = {k: v for k, v in available.items() if k in wanted and v is not None}
    missing = [k for k in wanted if available.get(k) is None]
    categories = args.category or sorted(p.name for p in args.corpus.iterdir() if p.is_dir())
    print(f"JSONSchemaBench at {args.corpus} ({', '.join(categories)}); not installed: {', '.join(missing) or '-'}")
    print()
    misses: list[dict[str, Any]] | None = [] if args.misses else None
    print(f"compile times: {'wall clock' if args.wall else 'CPU time of this process'}")
    print()
    print(report_bench(run_bench(args.corpus, categories, args.limit, engines, args.slow, misses, clock)))
    if args.misses and misses is not None:
        args.misses.write_text("".join(json.dumps(m) + "\n" for m in misses))
    print()
    print(
        f"pegchat-lenient: {lenient.lenient_only} schemas compiled only leniently, {lenient.lenient_only_warned} warned"
    )
    if not args.no_suite:
        suite_engines = dict(engines)
        for key in ("pegchat", "pegchat-lenient"):
            if key in suite_engines:
                suite_engines[key] = PegchatEngine(strict=key == "pegchat", resolver=suite_resolver(args.suite))
        print()
        print(f"JSON-Schema-Test-Suite draft 2020-12 at {args.suite}:")
        print()
        print(report_suite(run_suite(args.suite, suite_engines)))
    print()
    print(
        f'pegchat compile of {{"type": "string", "maxLength": 65535}}: {max_length_compile_ms(clock=clock):.1f} ms '
        "(median of 5)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
