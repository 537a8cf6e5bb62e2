"""Token-mask speed on the real 131,072-token tekken vocabulary, against the peers in the same run.

Run: ``python benchmarks/mask_bench.py [--repeat 3]``

Three grammar kinds, each with a fixed valid output of our own tokenised by mistral-common's tekken tokenizer:

* generic JSON — llama.cpp's ``json.gbnf`` and a ~500-token JSON object;
* tool-call JSON schema — a tool call schema with length limits, converted by our ``json_schema_to_gbnf``, and the
  same schema without them (no ``minLength`` / ``maxLength`` / ``maxItems``);
* lazy tool call — free text, then ``<tool_call>`` + the schema's JSON + ``</tool_call>``, with a word trigger.

For every engine it reports the compile time (grammar text → matcher ready) and the time of each
``fill_next_token_bitmask`` along the output (mean / p50 / p99 / max, µs), for a *cold* pass (fresh grammar, caches
empty — what the first request with a new grammar pays) and a *warm* pass (a new matcher over the same compiled
grammar — what every later request with that grammar pays). Medians over ``--repeat`` runs; ratios are against
llguidance measured in the same run when it is installed. Every engine is also checked to allow every token of the
output before accepting it.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._peers import (  # noqa: E402
    LlamaCppSampler,
    LlamaCppVocab,
    PeerError,
    TokenCandidates,
    tekken_gguf,
    word_trigger_pattern,
    xgrammar_spelling,
    xgrammar_tokenizer_info,
)
from gbnf_backend import (  # noqa: E402
    Grammar,
    GrammarMatcher,
    Trigger,
    Vocabulary,
    allocate_token_bitmask,
    json_schema_to_gbnf,
)

CORPORA = ROOT / "tests" / "data"
#: The clock of every timed call: wall time by default, CPU time of this process with --cpu (shared, noisy VMs).
CLOCK: Callable[[], float] = time.perf_counter

TOOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"const": "write_report"},
        "arguments": {
            "type": "object",
            "properties": {
                "title": {"type": "string", "maxLength": 200},
                "city": {"type": "string", "minLength": 1, "maxLength": 100},
                "days": {"type": "integer", "minimum": 1, "maximum": 14},
                "unit": {"enum": ["celsius", "fahrenheit"]},
                "tags": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 10},
                "include_hourly": {"type": "boolean"},
                "notes": {"type": "string", "maxLength": 2000},
            },
            "required": ["title", "city", "days"],
            "additionalProperties": False,
        },
    },
    "required": ["name", "arguments"],
    "additionalProperties": False,
}


def without_length_limits(schema: Any) -> Any:
    """Return a copy of ``schema`` without ``minLength`` / ``maxLength`` / ``minItems`` / ``maxItems``."""
    limits = {"minLength", "maxLength", "minItems", "maxItems"}
    if isinstance(schema, dict):
        return {k: without_length_limits(v) for k, v in schema.items() if k not in limits}
    if isinstance(schema, list):
        return [without_length_limits(v) for v in schema]
    return schema


UNBOUNDED_SCHEMA: dict[str, Any] = without_length_limits(TOOL_SCHEMA)

TOOL_CALL = {
    "name": "write_report",
    "arguments": {
        "title": "Weekly weather outlook for the Lyon area (draft \u00e9dition 2)",
        "city": "Lyon",
        "days": 7,
        "unit": "celsius",
        "tags": ["weather", "forecast", "r\u00e9sum\u00e9", "\u5929\u6c14"],
        "include_hourly": False,
        "notes": (
            "Expect a mild start to the week with morning fog in the valleys, clearing by noon. "
            "A cold front arrives on Thursday: gusts up to 60 km/h and 15-20 mm of rain. "
            'Quote: "bring an umbrella". Temperatures recover over the weekend (18\u00b0C \u2192 22\u00b0C).\n'
            "Sources: M\u00e9t\u00e9o-France, local stations #12 and #47; confidence 80%."
        ),
    },
}


def generic_json_document() -> str:
    records = [
        {
            "id": i,
            "name": f"sensor-{i:03d}",
            "location": {"lat": 45.76 + i / 100, "lon": 4.84 - i / 200, "site": ["Lyon", "Paris", "Nice"][i % 3]},
            "active": i % 4 != 0,
            "readings": [round(20 + (i * 7 % 13) / 3, 2), -1.5e-3 * i, None],
            "note": "ok" if i % 2 else "recalibrated \u00e0 9h",
        }
        for i in range(14)
    ]
    return json.dumps({"sensors": records, "count": len(records), "source": "benchmark"}, indent=1, ensure_ascii=False)


@dataclass
class Case:
    name: str
    gbnf: str
    output: str
    trigger_word: str | None = None
    kind: str = "gbnf"  # what llguidance is given: the same GBNF, the JSON schema, or a lazy Lark grammar
    schema: dict[str, Any] | None = None  # the JSON schema (kind "schema")


def cases() -> list[Case]:
    schema_gbnf = json_schema_to_gbnf(TOOL_SCHEMA)
    call = json.dumps(TOOL_CALL, ensure_ascii=False)
    lazy_gbnf = schema_gbnf.replace("root ::=", "tool-call-json ::=", 1) + (
        '\nroot ::= "<tool_call>" "\\n"? tool-call-json "\\n"? "</tool_call>"\n'
    )
    prose = (
        "Sure! I'll put together the weekly outlook for Lyon. First I need the latest data, so I'm going to call "
        "the reporting tool with the city, the number of days and a few notes about what to highlight.\n\n"
    )
    return [
        Case("generic JSON", (CORPORA / "grammars" / "json.gbnf").read_text(), generic_json_document()),
        Case("tool-call schema", schema_gbnf, call, kind="schema", schema=TOOL_SCHEMA),
        Case("schema, no limits", json_schema_to_gbnf(UNBOUNDED_SCHEMA), call, kind="schema", schema=UNBOUNDED_SCHEMA),
        Case("lazy tool call", lazy_gbnf, prose + "<tool_call>\n" + call + "\n</tool_call>", "<tool_call>", "lazy"),
    ]


def tekken_path() -> str:
    import mistral_common

    return os.path.join(os.path.dirname(mistral_common.__file__), "data", "tekken_240911.json")


def tokenize(text: str) -> list[int]:
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    tokenizer = Tekkenizer.from_file(tekken_path())
    return list(tokenizer.encode(text, bos=False, eos=False))


@dataclass
class Run:
    compile_ms: float
    cold: list[float]
    warm: list[float]


def run_ours(case: Case, vocab: Vocabulary, tokens: list[int]) -> Run:
    start = CLOCK()
    grammar = Grammar.from_gbnf(case.gbnf)
    triggers = [Trigger.word(case.trigger_word)] if case.trigger_word else None
    matcher = GrammarMatcher(grammar, vocab, triggers=triggers)
    compile_ms = (CLOCK() - start) * 1e3
    bitmask = allocate_token_bitmask(1, vocab.size)

    def walk(m: GrammarMatcher) -> list[float]:
        times = []
        for token in tokens:
            t0 = CLOCK()
            m.fill_next_token_bitmask(bitmask)
            times.append((CLOCK() - t0) * 1e6)
            if not (bitmask[0, token >> 5] >> (token & 31)) & 1:
                raise AssertionError(f"{case.name}: pegchat masks out token {token} of the valid output")
            if not m.accept_token(token):
                raise AssertionError(f"{case.name}: pegchat refused token {token}")
        return times

    cold = walk(matcher)
    warm = walk(GrammarMatcher(grammar, vocab, triggers=triggers))
    return Run(compile_ms, cold, warm)


def llguidance_tokenizer(vocab: Vocabulary) -> Any:
    import llguidance
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer

    tekken = Tekkenizer.from_file(tekken_path())

    class Wrapped:
        eos_token_id = 2
        bos_token_id = 1
        tokens = vocab.token_bytes
        special_token_ids = sorted(vocab.special_token_ids)

        def __call__(self, text: bytes | str) -> list[int]:
            if isinstance(text, bytes):
                text = text.decode("utf-8", errors="replace")
            return list(tekken.encode(text, bos=False, eos=False))

    return llguidance.LLTokenizer(llguidance.TokenizerWrapper(Wrapped()))


def run_llguidance(case: Case, tokenizer: Any, tokens: list[int]) -> Run:
    import llguidance
    import llguidance.numpy as llnp

    start = CLOCK()
    if case.kind == "gbnf":
        grammar = llguidance.grammar_from("gbnf", case.gbnf)
    elif case.kind == "schema":
        # llguidance 1.9 cannot read the \U0010FFFF escapes of our GBNF, so it gets the schema itself.
        grammar = llguidance.grammar_from("json_schema", json.dumps(case.schema))
    else:
        # llguidance has no sampler triggers: free text up to the marker is one lazy lexeme (shortest match). The
        # marker must be inside the lexeme: llguidance 1.9.1 panics on a lazy lexeme that matches the empty string
        # ("assertion failed: !state.has_lowest_match()", reported by get_error() after the first mask).
        grammar = llguidance.grammar_from(
            "lark",
            "%llguidance {}\nstart: prose call\nprose[lazy]: /(.|\\n)*<tool_call>/\n"
            f'call: "\\n"? %json {json.dumps(TOOL_SCHEMA)} "\\n"? "</tool_call>"\n',
        )
    matcher = llguidance.LLMatcher(tokenizer, grammar)
    if matcher.is_error():
        raise RuntimeError(matcher.get_error())
    compile_ms = (CLOCK() - start) * 1e3
    bitmask = llnp.allocate_token_bitmask(1, tokenizer.vocab_size)

    def walk(m: Any) -> list[float]:
        times = []
        for token in tokens:
            t0 = CLOCK()
            llnp.fill_next_token_bitmask(m, bitmask, 0)
            times.append((CLOCK() - t0) * 1e6)
            if m.is_error():
                raise RuntimeError(f"{case.name}: llguidance: {m.get_error().splitlines()[0]}")
            if not (int(bitmask[0, token >> 5]) >> (token & 31)) & 1:
                raise AssertionError(f"{case.name}: llguidance masks out token {token}")
            m.consume_token(token)
        return times

    cold = walk(matcher)
    warm = walk(llguidance.LLMatcher(tokenizer, grammar))
    return Run(compile_ms, cold, warm)


def llama_cpp_peer(vocab: Vocabulary) -> tuple[LlamaCppVocab, TokenCandidates]:
    """llama.cpp's vocabulary from a vocab-only GGUF of ``vocab`` (written once), and a full candidate array."""
    peer = LlamaCppVocab(tekken_gguf(vocab))
    if peer.n_tokens != vocab.size:
        raise PeerError(f"llama.cpp loaded {peer.n_tokens} tokens, expected {vocab.size}")
    return peer, TokenCandidates(peer.n_tokens)


def run_llama_cpp(case: Case, peer: LlamaCppVocab, candidates: TokenCandidates, tokens: list[int]) -> Run:
    patterns = [word_trigger_pattern(case.trigger_word)] if case.trigger_word else []
    start = CLOCK()
    sampler = peer.sampler(case.gbnf, trigger_patterns=patterns)
    compile_ms = (CLOCK() - start) * 1e3

    def walk(s: LlamaCppSampler) -> list[float]:
        times = []
        try:
            for token in tokens:
                candidates.reset()
                t0 = CLOCK()
                s.apply(candidates)
                times.append((CLOCK() - t0) * 1e6)
                if not candidates.allowed(token):
                    raise AssertionError(f"{case.name}: llama.cpp masks out token {token} ({peer.piece(token)!r})")
                s.accept(token)
        finally:
            s.close()
        return times

    cold = walk(sampler)
    warm = walk(peer.sampler(case.gbnf, trigger_patterns=patterns))  # no cache in llama.cpp: the same work again
    return Run(compile_ms, cold, warm)


def xgrammar_compile(case: Case, tokenizer_info: Any) -> Any:
    import xgrammar

    compiler = xgrammar.GrammarCompiler(tokenizer_info, max_threads=1, cache_enabled=False)
    if case.kind == "lazy":
        tag = xgrammar.StructuralTagItem(begin="<tool_call>\n", schema=json.dumps(TOOL_SCHEMA), end="\n</tool_call>")
        with warnings.catch_warnings():  # the (tags, triggers) form is deprecated in 0.2 but still the plain one
            warnings.simplefilter("ignore", DeprecationWarning)
            return compiler.compile_structural_tag([tag], ["<tool_call>"])
    return compiler.compile_grammar(xgrammar_spelling(case.gbnf))


def exit_code_within(seconds: float, task: Callable[[], object]) -> int | None:
    """Run ``task`` in a forked child; its exit code, or None if it was still running after ``seconds`` (killed).

    A compiled peer cannot be interrupted in-process, so a compile that may take minutes is probed this way first.
    """
    import multiprocessing

    child = multiprocessing.get_context("fork").Process(target=task, daemon=True)
    child.start()
    child.join(seconds)
    if child.is_alive():
        child.kill()
        child.join()
        return None
    return child.exitcode


def run_xgrammar(case: Case, tokenizer_info: Any, tokens: list[int], limit_s: float) -> Run:
    import xgrammar

    if limit_s > 0:
        code = exit_code_within(limit_s, lambda: xgrammar_compile(case, tokenizer_info))
        if code is None:
            raise TimeoutError(f"xgrammar did not compile the grammar within {limit_s:.0f} s (probed in a child)")
        if code != 0:
            raise RuntimeError(f"xgrammar's compile probe exited with code {code} (run with --compile-limit 0 to see)")
    start = CLOCK()
    compiled = xgrammar_compile(case, tokenizer_info)
    matcher = xgrammar.GrammarMatcher(compiled)
    compile_ms = (CLOCK() - start) * 1e3
    bitmask = xgrammar.allocate_token_bitmask(1, tokenizer_info.vocab_size)
    view = bitmask.numpy()

    def walk(m: Any) -> list[float]:
        times = []
        for token in tokens:
            t0 = CLOCK()
            m.fill_next_token_bitmask(bitmask, 0)
            times.append((CLOCK() - t0) * 1e6)
            if not (int(view[0, token >> 5]) >> (token & 31)) & 1:
                raise AssertionError(f"{case.name}: xgrammar masks out token {token}")
            if not m.accept_token(token):
                raise AssertionError(f"{case.name}: xgrammar refused token {token}")
        return times

    cold = walk(matcher)
    warm = walk(xgrammar.GrammarMatcher(compiled))
    return Run(compile_ms, cold, warm)


def setup_llguidance(vocab: Vocabulary, args: argparse.Namespace) -> Callable[[Case, list[int]], Run]:
    import llguidance

    tokenizer = llguidance_tokenizer(vocab)
    print(f"llguidance {getattr(llguidance, '__version__', '?')}: tokenizer ready")
    return lambda case, tokens: run_llguidance(case, tokenizer, tokens)


def setup_llama_cpp(vocab: Vocabulary, args: argparse.Namespace) -> Callable[[Case, list[int]], Run]:
    start = time.perf_counter()
    path = tekken_gguf(vocab)
    peer, candidates = llama_cpp_peer(vocab)
    print(
        f"llama-cpp-python {peer.version}: vocab-only GGUF {path} loaded in {time.perf_counter() - start:.2f} s "
        f"({peer.n_tokens} tokens)"
    )
    probe = generic_json_document()[:400]
    if peer.tokenize(probe) != tokenize(probe):
        print("llama.cpp: warning: its tokenization of a JSON sample differs from tekken's")
    if args.check_gguf:
        start = time.perf_counter()
        same = Vocabulary.from_gguf(path).token_bytes == vocab.token_bytes
        print(f"Vocabulary.from_gguf: token bytes equal tekken's: {same} ({time.perf_counter() - start:.1f} s)")
    return lambda case, tokens: run_llama_cpp(case, peer, candidates, tokens)


def setup_xgrammar(vocab: Vocabulary, args: argparse.Namespace) -> Callable[[Case, list[int]], Run]:
    start = time.perf_counter()
    info = xgrammar_tokenizer_info(vocab)
    version = importlib.metadata.version("xgrammar")
    seconds = time.perf_counter() - start
    print(f"xgrammar {version}: tokenizer info in {seconds:.2f} s ({len(info.special_token_ids)} special ids)")
    return lambda case, tokens: run_xgrammar(case, info, tokens, args.compile_limit)


PEERS = ("llguidance", "llama.cpp", "xgrammar")
PEER_SETUP: dict[str, Callable[[Vocabulary, argparse.Namespace], Callable[[Case, list[int]], Run]]] = {
    "llguidance": setup_llguidance,
    "llama.cpp": setup_llama_cpp,
    "xgrammar": setup_xgrammar,
}


def summary(values: list[float]) -> tuple[float, float, float, float]:
    array = np.array(values)
    return float(array.mean()), float(np.median(array)), float(np.percentile(array, 99)), float(array.max())


def median_run(runs: list[Run]) -> tuple[float, tuple[float, ...], tuple[float, ...]]:
    compile_ms = statistics.median(r.compile_ms for r in runs)
    cold = tuple(statistics.median(s) for s in zip(*(summary(r.cold) for r in runs), strict=True))
    warm = tuple(statistics.median(s) for s in zip(*(summary(r.warm) for r in runs), strict=True))
    return compile_ms, cold, warm


@dataclass
class RequestRun:
    compile_ms: float
    cold: list[float]
    warm: list[float]
    accept: list[float]
    memory_bytes: int


def run_request(
    case: Case, compiler: Any, vocab: Vocabulary, tokens: list[int]
) -> tuple[float, list[float], list[float], Any]:
    """One request as a server makes it: compile through ``compiler`` (a hit when it saw these tools), then a
    matcher and one mask + accept_token per token. Returns (compile ms, mask µs, accept µs, the compiled grammar)."""
    from gbnf_backend import CompiledGrammar

    start = CLOCK()
    if case.kind == "schema":
        compiled: CompiledGrammar = compiler.compile_json_schema(case.schema)
    else:
        triggers = [Trigger.word(case.trigger_word)] if case.trigger_word else ()
        compiled = compiler.compile_gbnf(case.gbnf, triggers=triggers)
    matcher = GrammarMatcher(compiled)
    compile_ms = (CLOCK() - start) * 1e3
    bitmask = allocate_token_bitmask(1, vocab.size)
    times, accepts = [], []
    for token in tokens:
        t0 = CLOCK()
        matcher.fill_next_token_bitmask(bitmask)
        t1 = CLOCK()
        if not (bitmask[0, token >> 5] >> (token & 31)) & 1:
            raise AssertionError(f"{case.name}: pegchat masks out token {token} of the valid output")
        t2 = CLOCK()  # accept_token alone (the check above is the benchmark's, not the matcher's)
        accepted = matcher.accept_token(token)
        accepts.append((CLOCK() - t2) * 1e6)
        if not accepted:
            raise AssertionError(f"{case.name}: pegchat refused token {token}")
        times.append((t1 - t0) * 1e6)
    return compile_ms, times, accepts, compiled


def run_per_request(case: Case, vocab: Vocabulary, tokens: list[int], engine: str) -> RequestRun:
    """Cold: a new compiler (empty cache) compiles this request's grammar; warm: the same tools again."""
    from gbnf_backend import GrammarCompiler

    previous = os.environ.pop("PEGCHAT_PURE_PYTHON", None)
    if engine == "python":
        os.environ["PEGCHAT_PURE_PYTHON"] = "1"
    try:
        compiler = GrammarCompiler(vocab)
        compile_ms, cold, accept, compiled = run_request(case, compiler, vocab, tokens)
        _, warm, _, _ = run_request(case, compiler, vocab, tokens)
        native = getattr(compiled, "native", None)
        memory = int(native.memory_bytes) if native is not None else int(compiled.memory_bytes)
    finally:
        os.environ.pop("PEGCHAT_PURE_PYTHON", None)
        if previous is not None:
            os.environ["PEGCHAT_PURE_PYTHON"] = previous
    return RequestRun(compile_ms, cold, warm, accept, memory)


def per_request_main(vocab: Vocabulary, args: argparse.Namespace) -> None:
    """Per-request table: pegchat native and python engines (and llguidance's cold/warm walk) per grammar."""
    llg: Callable[[Case, list[int]], Run] | None = None
    if "llguidance" not in args.skip:
        try:
            llg = setup_llguidance(vocab, args)
        except Exception as error:
            print(f"llguidance: not measured: {type(error).__name__}: {error}")
    print(f"\nper request ({'CPU' if CLOCK is time.process_time else 'wall'} time; medians of {args.repeat} runs)")
    head = f"{'grammar':<18} {'engine':<16} {'compile ms':>10} | {'cold mean':>9} {'p50':>6} {'p99':>7} {'max':>7}"
    print(f"{head} | {'warm mean':>9} {'p99':>6} | {'accept µs':>9} | {'memory kB':>9}")
    for case in cases():
        tokens = [*tokenize(case.output), 2]
        rows: dict[str, tuple[float, ...]] = {}
        for engine in args.engines:
            runs = [run_per_request(case, vocab, tokens, engine) for _ in range(args.repeat)]
            med = statistics.median
            cold = [med(s) for s in zip(*(summary(r.cold) for r in runs), strict=True)]
            warm = [med(s) for s in zip(*(summary(r.warm) for r in runs), strict=True)]
            accept = med(float(np.mean(r.accept)) for r in runs)
            compile_ms = med(r.compile_ms for r in runs)
            memory = med(r.memory_bytes for r in runs) / 1024
            rows[engine] = (cold[0], cold[2])
            print(
                f"{case.name:<18} {'pegchat-' + engine:<16} {compile_ms:>10.1f} | {cold[0]:>9.0f} {cold[1]:>6.0f} "
                f"{cold[2]:>7.0f} {cold[3]:>7.0f} | {warm[0]:>9.1f} {warm[2]:>6.0f} | {accept:>9.1f} | {memory:>9.0f}"
            )
        if llg is not None:
            try:
                compile_ms, cold_t, warm_t = median_run([llg(case, tokens) for _ in range(args.repeat)])
            except Exception as error:
                print(f"{case.name:<18} llguidance failed: {type(error).__name__}: {error}")
                continue
            print(
                f"{case.name:<18} {'llguidance':<16} {compile_ms:>10.1f} | {cold_t[0]:>9.0f} {cold_t[1]:>6.0f} "
                f"{cold_t[2]:>7.0f} {cold_t[3]:>7.0f} | {warm_t[0]:>9.1f} {warm_t[2]:>6.0f} |"
            )
            for engine, (mean, p99) in rows.items():
                ratio = f"cold mean {mean / cold_t[0]:.3g}x, p99 {p99 / cold_t[2]:.3g}x"
                print(f"{'':<18} ratio pegchat-{engine}/llguidance: {ratio}")


def batch_main(vocab: Vocabulary, args: argparse.Namespace) -> None:
    """A batch of 64 matchers (64 requests, each its own compiled generic-JSON grammar, at different points of the
    document) filled in one ``fill_next_token_bitmasks`` call: cold masks, on 1 and on 2 threads (wall time)."""
    from gbnf_backend import GrammarCompiler, fill_next_token_bitmasks
    from gbnf_backend.engine._native import matcher as native_matcher

    case = cases()[0]
    tokens = tokenize(case.output)
    results: dict[int, list[float]] = {1: [], 2: []}
    cpu: dict[int, list[float]] = {1: [], 2: []}  # CPU time of the process (every thread)
    for repeat in range(args.repeat):
        for threads in (1, 2):
            matchers: list[GrammarMatcher | None] = []
            for i in range(64):
                matcher = GrammarMatcher(GrammarCompiler(vocab, cache_size=0).compile_gbnf(case.gbnf))
                for token in tokens[: (i * 23 + repeat) % len(tokens)]:
                    matcher.accept_token(token)
                matchers.append(matcher)
            bitmask = allocate_token_bitmask(64, vocab.size)
            native_matcher.BATCH_THREADS = threads
            start, cpu_start = time.perf_counter(), time.process_time()
            fill_next_token_bitmasks(matchers, bitmask)
            results[threads].append((time.perf_counter() - start) * 1e3)
            cpu[threads].append((time.process_time() - cpu_start) * 1e3)
    one, two = statistics.median(results[1]), statistics.median(results[2])
    print(
        f"\nbatch of 64 cold masks (generic JSON, 64 compiled grammars): 1 thread {one:.1f} ms, 2 threads {two:.1f} ms"
    )
    print(f"2 threads / 1 thread: {two / one:.2f} (medians of {args.repeat}; wall time)")
    # On a loaded machine the second thread may not get a core: equal CPU times then say the threads added no work
    # (no contention), and a wall ratio near 1 says the core was busy, not that the fill is serial.
    cpu_one, cpu_two = statistics.median(cpu[1]), statistics.median(cpu[2])
    print(f"CPU time: 1 thread {cpu_one:.1f} ms, 2 threads {cpu_two:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=PEERS, metavar="PEER", help=f"peers not to run ({', '.join(PEERS)})"
    )
    parser.add_argument(
        "--compile-limit",
        type=float,
        default=60.0,
        metavar="S",
        help="skip an xgrammar grammar whose compile takes longer than S seconds (0: no limit)",
    )
    parser.add_argument("--check-gguf", action="store_true", help="read the llama.cpp GGUF back with from_gguf")
    parser.add_argument(
        "--per-request",
        action="store_true",
        help="per-request mode: a new compiled grammar per walk (cold), the same tools again (warm, cache hit)",
    )
    parser.add_argument(
        "--engines", nargs="+", default=["native", "python"], choices=["native", "python"], help="per-request engines"
    )
    parser.add_argument("--cpu", action="store_true", help="time with this process's CPU clock instead of wall time")
    parser.add_argument("--batch", action="store_true", help="batch fill of 64 matchers on 1 and 2 threads")
    args = parser.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = time.process_time
    start = time.perf_counter()
    vocab = Vocabulary.from_tekken()
    print(f"vocabulary: {vocab.size} tokens, preprocessing {time.perf_counter() - start:.2f} s")
    if args.batch:
        batch_main(vocab, args)
        return
    if args.per_request:
        per_request_main(vocab, args)
        return
    engines: dict[str, Callable[[Case, list[int]], Run]] = {
        "pegchat": lambda case, tokens: run_ours(case, vocab, tokens),
    }
    for name in PEERS:
        if name in args.skip:
            continue
        try:
            engines[name] = PEER_SETUP[name](vocab, args)
        except Exception as error:  # a missing or broken peer must not hide the others
            print(f"{name}: not measured: {type(error).__name__}: {error}")
    header = f"{'grammar':<18} {'engine':<11} {'tokens':>6} {'compile ms':>10}"
    stats = f"{'mean':>8} {'p50':>7} {'p99':>8} {'max':>8}"
    print(f"\n{header} | cold µs: {stats} | warm µs: {stats}")
    for case in cases():
        tokens = [*tokenize(case.output), 2]
        results: dict[str, tuple[float, tuple[float, ...], tuple[float, ...]]] = {}
        for name, engine in engines.items():
            try:
                results[name] = median_run([engine(case, tokens) for _ in range(args.repeat)])
            except Exception as error:  # a peer failing must not hide our numbers
                print(f"{case.name:<18} {name:<11} failed: {type(error).__name__}: {error}")
                continue
            compile_ms, cold, warm = results[name]
            cells = " ".join(f"{v:>8.0f}" if i % 4 != 1 else f"{v:>7.0f}" for i, v in enumerate(cold))
            wcells = " ".join(f"{v:>8.0f}" if i % 4 != 1 else f"{v:>7.0f}" for i, v in enumerate(warm))
            print(f"{case.name:<18} {name:<11} {len(tokens):>6} {compile_ms:>10.1f} | {cells:>33} | {wcells:>33}")
        if "pegchat" in results:
            ours = results["pegchat"]
            ratios = [
                f"pegchat/{name}: cold mean {ours[1][0] / theirs[1][0]:.3g}x, "
                f"warm mean {ours[2][0] / theirs[2][0]:.3g}x, cold p99 {ours[1][2] / theirs[1][2]:.3g}x"
                for name, theirs in results.items()
                if name != "pegchat"
            ]
            for line in ratios:
                print(f"{'':<18} ratio {line}")


if __name__ == "__main__":
    main()
