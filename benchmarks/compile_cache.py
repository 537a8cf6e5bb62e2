"""Per-request cost through the compiler: a new grammar (cold) against the same tools again (warm, cache hit).

Run: ``python benchmarks/compile_cache.py [--requests 3]`` (needs mistral-common's bundled tekken vocabulary).

Each request does what a server does: ``fmt = get_format(...)`` for the request's tools, ``fmt.matcher(vocab)``,
then one mask per character of a valid tool call (``accept_string`` one character at a time). The first request
compiles and fills the caches; later ones with the same tools hit the compiler's content-keyed cache, so their
masks are copies of cached ones. Times are CPU seconds of this process (the VMs are shared and noisy).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from chat_formats import get_format
from gbnf_backend import Vocabulary, allocate_token_bitmask, default_compiler

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "unit": {"enum": ["c", "f"]}},
                "required": ["city"],
            },
        },
    }
]
CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}}\n</tool_call>'


def request(vocab: Vocabulary) -> tuple[float, float, int]:
    """Return (CPU ms for grammar + matcher, CPU µs per mask, masks) for one request."""
    bitmask = allocate_token_bitmask(1, vocab.size)
    start = time.process_time()
    fmt = get_format("hermes", tools=TOOLS, tool_choice="required")
    matcher = fmt.matcher(vocab)
    ready = time.process_time()
    matcher.fill_next_token_bitmask(bitmask)
    for ch in CALL:
        if not matcher.accept_string(ch):
            raise AssertionError(f"the grammar refused {ch!r}")
        matcher.fill_next_token_bitmask(bitmask)
    done = time.process_time()
    masks = len(CALL) + 1
    return (ready - start) * 1e3, (done - ready) * 1e6 / masks, masks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3, help="warm requests after the cold one (default 3)")
    args = parser.parse_args()
    vocab = Vocabulary.from_tekken()
    cold_ready, cold_mask, masks = request(vocab)
    warm = [request(vocab) for _ in range(args.requests)]
    print(f"hermes, one tool, {masks} masks per request (CPU time)")
    print(f"cold: grammar + matcher {cold_ready:.1f} ms, {cold_mask:.0f} µs per mask")
    print(
        f"warm (median of {len(warm)}): grammar + matcher {statistics.median(w[0] for w in warm):.1f} ms, "
        f"{statistics.median(w[1] for w in warm):.1f} µs per mask"
    )
    info = default_compiler(vocab).cache_info()
    print(f"compiler cache: {info['hits']} hits, {info['misses']} misses, ~{info['memory_bytes'] / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
