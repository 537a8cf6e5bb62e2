"""The modules Cython compiles (``PEGCHAT_COMPILED_MODULES`` in CMakeLists.txt) behave exactly as their pure-Python
sources: every format's samples (ours and the corpus'), streamed in several chunkings, give the same deltas and the
same final parse from the modules this process imports (compiled after ``pip install``) and from the ``.py``
sources alone (a subprocess whose import hook refuses the compiled ones). And an installed build really runs the
compiled modules: an extension module built beside a source is the one imported."""

from __future__ import annotations

import importlib
import importlib.machinery
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import chat_formats.stream as stream_module
from tests.chat_formats.corpus import JUDGED, load_samples
from tests.chat_formats.samples import SAMPLES, TOOLS
from tests.chat_formats.support import chunks
from tests.compiled import ROOT, SALT, compiled_module_names, outcomes

#: Run in a subprocess: import peg and chat_formats from their ``.py`` sources only, stream every case read from
#: stdin and print what :func:`tests.compiled.outcomes` prints.
_PURE_RUNNER = r"""
import importlib.abc, importlib.util, json, sys
from pathlib import Path

ROOT = Path(sys.argv[1])

class SourceOnly(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname.partition(".")[0] not in ("peg", "chat_formats"):
            return None
        base = ROOT.joinpath(*fullname.split("."))
        if (base / "__init__.py").is_file():
            return importlib.util.spec_from_file_location(
                fullname, base / "__init__.py", submodule_search_locations=[str(base)]
            )
        if base.with_suffix(".py").is_file():
            return importlib.util.spec_from_file_location(fullname, base.with_suffix(".py"))
        return None

sys.meta_path.insert(0, SourceOnly())
sys.path.insert(0, str(ROOT))
import peg._packrat, chat_formats.stream
assert peg._packrat.__file__.endswith(".py") and chat_formats.stream.__file__.endswith(".py")
import chat_formats.stream
from tests.chat_formats.support import chunks
from tests.compiled import SALT, outcomes
chat_formats.stream.new_salt = lambda: SALT  # the same call ids in both processes
print(json.dumps(outcomes(json.load(sys.stdin))))
"""


def _cases() -> list[dict[str, Any]]:
    """Every sample, each with three chunkings: 4 characters at a time, 1 at a time (short outputs), random cuts."""
    samples = [(fmt, case.output, {"tools": TOOLS, **case.options}) for fmt, cases in SAMPLES.items() for case in cases]
    samples += [(s.format, s.output, s.options) for s in load_samples() if s.id not in JUDGED]
    rng = random.Random(20261124)
    out: list[dict[str, Any]] = []
    for name, text, options in samples:
        cuttings = [list(range(0, len(text), 4))[1:], sorted(rng.sample(range(1, len(text) + 1), min(12, len(text))))]
        if len(text) <= 400:
            cuttings.append(list(range(1, len(text))))
        for cuts in cuttings:
            out.append({"format": name, "options": options, "text": text, "pieces": chunks(text, cuts)})
    return out


def test_compiled_list_names_existing_sources() -> None:
    names = compiled_module_names()
    assert names and len(set(names)) == len(names)
    for name in names:
        assert (ROOT / (name.replace(".", "/") + ".py")).is_file(), name


def test_a_built_module_is_the_one_imported() -> None:
    """Beside each listed source, an extension module built for this interpreter wins over the ``.py``; with
    ``PEGCHAT_EXPECT_COMPILED=1`` (set by CI, which installs with the build) every listed module must be one."""
    expect = os.environ.get("PEGCHAT_EXPECT_COMPILED") == "1"
    suffixes = tuple(importlib.machinery.EXTENSION_SUFFIXES)
    for name in compiled_module_names():
        module = importlib.import_module(name)
        origin = str(module.__file__)
        built = [Path(origin).with_name(name.rpartition(".")[2] + s) for s in suffixes]
        if expect or any(p.exists() for p in built):
            assert origin.endswith(suffixes), f"{name} runs from {origin}, not from its compiled extension"


def test_compiled_modules_equal_the_pure_python_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _cases()
    assert len(cases) > 300
    done = subprocess.run(
        [sys.executable, "-c", _PURE_RUNNER, str(ROOT)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    pure = json.loads(done.stdout)
    monkeypatch.setattr(stream_module, "new_salt", lambda: SALT)
    here = json.loads(json.dumps(outcomes(cases)))
    assert len(here) == len(pure) == len(cases)
    for case, mine, theirs in zip(cases, here, pure, strict=True):
        assert mine == theirs, (case["format"], case["text"][:200], case["pieces"][:8])
