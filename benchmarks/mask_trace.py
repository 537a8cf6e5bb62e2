"""What the slowest per-request masks are made of: one cold walk per grammar of ``mask_bench.py`` on the core.

Run: ``python benchmarks/mask_trace.py [--top 4]``

For each grammar (a new compiled grammar, as a server's first request with new tools), prints the ``--top`` slowest
``fill_next_token_bitmask`` and ``accept_token`` calls with the token index, CPU µs, trie nodes the mask walked,
byte states and NPDA states created, and the text before: the per-step view behind ``mask_bench.py``'s p99.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.mask_bench import cases, tokenize
from gbnf_backend import GrammarCompiler, GrammarMatcher, Trigger, Vocabulary, allocate_token_bitmask

CLOCK = time.process_time


def trace(vocab: Vocabulary, top: int) -> None:
    """Per grammar, one cold walk on the core: the ``top`` slowest masks and accept_token calls with what each
    did (trie nodes walked, byte states and NPDA states created), to find what the p99 is made of."""
    for case in cases():
        tokens = [*tokenize(case.output), 2]
        compiler = GrammarCompiler(vocab)
        if case.kind == "schema":
            compiled = compiler.compile_json_schema(case.schema)
        else:
            triggers = [Trigger.word(case.trigger_word)] if case.trigger_word else ()
            compiled = compiler.compile_gbnf(case.gbnf, triggers=triggers)
        matcher = GrammarMatcher(compiled)
        engine = getattr(matcher, "native_engine", None)
        if engine is None:
            print(f"{case.name}: not on the core")
            continue
        bitmask = allocate_token_bitmask(1, vocab.size)
        rows, text = [], ""
        for index, token in enumerate(tokens):
            before, states = engine.stats(), engine.n_states
            t0 = CLOCK()
            matcher.fill_next_token_bitmask(bitmask)
            t1 = CLOCK()
            after, mask_states = engine.stats(), engine.n_states
            matcher.accept_token(token)
            t2 = CLOCK()
            new = (after[3] - before[3], after[2] - before[2], mask_states - states, engine.n_states - mask_states)
            rows.append((index, (t1 - t0) * 1e6, (t2 - t1) * 1e6, *new, text[-24:]))
            text += vocab.token_bytes[token].decode("utf-8", errors="replace")
        columns = "index, µs, trie nodes, new byte states, new NPDA states, text before"
        print(f"\n{case.name}: {len(tokens)} tokens ({columns})")
        for label, column in (("mask", 1), ("accept_token", 2)):
            for row in sorted(rows, key=lambda r: -r[column])[:top]:
                index, _, _, nodes, byte_states, mask_states, accept_states, before_text = row
                if column == 2:  # accept_token walks no trie and creates no byte states: only NPDA states
                    cells = f"{row[column]:>8.0f} µs {'-':>7} {'-':>5} {accept_states:>5}"
                else:
                    cells = f"{row[column]:>8.0f} µs {nodes:>7} {byte_states:>5} {mask_states:>5}"
                print(f"  {label:<12} #{index:<4} {cells} {before_text!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--top", type=int, default=4, help="calls shown per grammar and kind")
    args = parser.parse_args()
    trace(Vocabulary.from_tekken(), args.top)


if __name__ == "__main__":
    main()
