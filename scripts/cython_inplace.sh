#!/usr/bin/env bash
# Compile the pure-Python modules listed in CMakeLists.txt (PEGCHAT_COMPILED_MODULES) with Cython, in place, for
# development: each `pkg/mod.py` gets a `pkg/mod.<abi>.so` beside it, which Python imports instead of the source.
# `scripts/cython_inplace.sh --clean` removes them again (back to the pure-Python modules).
# `pip install` does the same inside its build (CMakeLists.txt); this script is for a source checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
modules=$(sed -n '/^set(PEGCHAT_COMPILED_MODULES/,/)/p' CMakeLists.txt | tr -d '()' | tr ' ' '\n' | grep '/' || true)
suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
if [[ "${1:-}" == "--clean" ]]; then
  for m in $modules; do rm -f "$m$suffix"; done
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
include=$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
compile() {
  local m=$1 name=${1//\//.}
  python3 -m cython -3 --fast-fail -X language_level=3 --module-name "$name" "$m.py" -o "$work/$name.c"
  gcc -shared -fPIC -O2 -I"$include" "$work/$name.c" -o "$work/$name$suffix"
  mv -f "$work/$name$suffix" "$m$suffix"
}
pids=()
for m in $modules; do
  compile "$m" &
  pids+=($!)
  if (( ${#pids[@]} >= ${JOBS:-2} )); then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p"; done
echo "compiled: $(echo $modules | wc -w) modules"
