#!/usr/bin/env bash
# Build the compiled core with AddressSanitizer + UndefinedBehaviorSanitizer into a scratch directory and run the
# core's tests (tests/native) against that build.
#
#   scripts/sanitize.sh [pytest arguments...]        e.g.  scripts/sanitize.sh -x -q
#
# Environment: PYTHON (default python3), SCRATCH (default: a new /tmp/pegchat-sanitize.* directory).
# The sources are copied next to the sanitized extension so that neither an installed nor an editable build of the
# core shadows it; libasan is preloaded because the Python interpreter itself is not instrumented.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PY=${PYTHON:-python3}
SCRATCH=${SCRATCH:-$(mktemp -d /tmp/pegchat-sanitize.XXXXXX)}
FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"

echo "sanitized build in $SCRATCH/build"
cmake -S "$ROOT" -B "$SCRATCH/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPEGCHAT_EXTRA_FLAGS="$FLAGS" -DPEGCHAT_COMPILE_PYTHON=OFF -DPython_EXECUTABLE="$(command -v "$PY")" >"$SCRATCH/cmake.log"
cmake --build "$SCRATCH/build" >"$SCRATCH/build.log"

rm -rf "${SCRATCH:?}/src"
mkdir -p "$SCRATCH/src"
for item in gbnf_backend peg chat_formats tests pyproject.toml; do
  cp -r "$ROOT/$item" "$SCRATCH/src/"
done
find "$SCRATCH/src" -name '_core*.so' -delete
cp "$SCRATCH"/build/_core*.so "$SCRATCH/src/gbnf_backend/engine/_native/"

# libstdc++ is preloaded with libasan: python does not link it, and ASan's exception interceptor needs the real
# __cxa_throw resolved at startup (otherwise "CHECK failed ... real___cxa_throw" on the first C++ exception).
PRELOAD="$("${CXX:-g++}" -print-file-name=libasan.so) $("${CXX:-g++}" -print-file-name=libstdc++.so)"
cd "$SCRATCH/src"
# Leak checking is off: CPython keeps many allocations alive until exit by design.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
LD_PRELOAD="$PRELOAD" PYTHONPATH="$SCRATCH/src" "$PY" - <<'PY'
from gbnf_backend.engine._native import engine_name, load_core
core = load_core()
assert core is not None and "pegchat-sanitize" in core.__file__, core
print("sanitized core:", core.__file__, engine_name())
PY
LD_PRELOAD="$PRELOAD" PYTHONPATH="$SCRATCH/src" "$PY" -m pytest -p no:cacheprovider tests/native "$@"
