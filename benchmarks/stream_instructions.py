"""Instructions a chat stream executes per fed token, counted by callgrind: the stable check when timings are noisy.

Timings on a shared machine move by 10-30 % between runs (and by 2x between machine states); callgrind's
instruction counts move by < 0.1 %. This script runs itself under ``valgrind --tool=callgrind`` and counts only
what runs inside ``ChatStream.feed`` (and, with ``--finish``, ``ChatStream.finish``), over 3 streams of the
many-calls output of ``chat_stream_bench.py`` fed 4 characters at a time (the first stream included: it is the one
a server sees first). It prints the count per stream and per fed token.

The counts need the compiled modules built in place with their symbols (``scripts/cython_inplace.sh``; a
``pip install`` strips them, and callgrind then finds nothing to count): ``--tree`` names the checkout to measure
(default: this one), whose modules are imported ahead of any installed or editable copy, so two checkouts can be
compared in the same session.

Run: ``python3 benchmarks/stream_instructions.py --format qwen3-coder --calls 128 [--finish] [--gc]
[--tree PATH]``. Costs about 20 s under callgrind at 8 calls, 90 s at 512.
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile

FEED = "__pyx_pw_12chat_formats_6stream_10ChatStream_3feed"
FINISH = "__pyx_pw_12chat_formats_6stream_10ChatStream_5finish"
STREAMS = 3
STEP = 4


def run_streams(tree: str, name: str, calls: int, *, collect: bool) -> int:
    """Feed ``STREAMS`` streams of ``name``'s many-calls output from ``tree``'s modules; returns the fed tokens
    per stream. ``collect``: leave the cyclic garbage collector on (as a server would)."""
    # The editable install's finder would import this checkout's modules whatever the path says.
    sys.meta_path[:] = [f for f in sys.meta_path if "Redirecting" not in type(f).__name__]
    sys.path[:0] = [tree, os.path.join(tree, "benchmarks")]
    # (imported here, from the tree being measured)
    import chat_stream_bench as bench

    from chat_formats import get_format

    make = {"glm-4.5": bench.glm, "hermes": bench.hermes, "qwen3-coder": bench.qwen3_coder}[name]
    text = make(calls)
    fmt = get_format(name, tools=bench.TOOLS)
    pieces = [text[i : i + STEP] for i in range(0, len(text), STEP)]
    fmt.parse(text)  # (the format's grammar and caches built before anything is counted)
    if not collect:
        gc.disable()
    for _ in range(STREAMS):
        stream = fmt.stream()
        for piece in pieces:
            stream.feed(piece)
        stream.finish()
    return len(pieces)


def count(tree: str, name: str, calls: int, *, finish: bool, collect: bool) -> tuple[int, int]:
    """(instructions counted, fed tokens per stream): this script's inner run under callgrind."""
    toggles = [f"--toggle-collect={FEED}"] + ([f"--toggle-collect={FINISH}"] if finish else [])
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        inner = [sys.executable, os.path.abspath(__file__), "--inner", "--format", name, "--calls", str(calls)]
        inner += ["--tree", tree] + (["--gc"] if collect else [])
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", *toggles, f"--callgrind-out-file={out}"]
        done = subprocess.run([*cmd, *inner], capture_output=True, text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        if done.returncode != 0:
            raise SystemExit(f"stream_instructions: the run under callgrind failed: {done.stderr.strip()[-400:]}")
        tokens = int(done.stdout.split()[-1])
        with open(out) as f:
            totals = [line.split()[1] for line in f if line.startswith(("summary:", "totals:"))]
    total = int(totals[0]) if totals else 0
    if total == 0:
        raise SystemExit(
            "stream_instructions: nothing counted: build the compiled modules in place with symbols "
            "(scripts/cython_inplace.sh) in the measured tree"
        )
    return total, tokens


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", default="qwen3-coder", choices=["glm-4.5", "hermes", "qwen3-coder"])
    ap.add_argument("--calls", type=int, default=128, help="calls in the output")
    ap.add_argument("--finish", action="store_true", help="count ChatStream.finish too")
    ap.add_argument("--gc", action="store_true", help="leave the cyclic garbage collector on")
    ap.add_argument("--tree", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))), help="checkout")
    ap.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    tree = os.path.abspath(args.tree)
    if args.inner:
        print(run_streams(tree, args.format, args.calls, collect=args.gc))
        return
    total, tokens = count(tree, args.format, args.calls, finish=args.finish, collect=args.gc)
    per_stream = total / STREAMS
    what = "feed+finish" if args.finish else "feed"
    print(
        f"{args.format} {args.calls} calls, {what}, gc {'on' if args.gc else 'off'}: "
        f"{per_stream / 1e6:.2f} M instructions per stream, {per_stream / tokens / 1e3:.2f} k per fed token ({tree})"
    )


if __name__ == "__main__":
    main()
