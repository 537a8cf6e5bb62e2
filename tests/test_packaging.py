"""The installed distribution (not the editable checkout) holds every module and the console script.

CI installs in editable mode, which maps whole directories; this builds the real wheel so that a subpackage left
out of the packaging configuration (``chat_formats/formats`` once was) fails here instead of on a user's machine.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.compiled import compiled_module_names

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("gbnf_backend", "peg", "chat_formats")


def test_wheel_contains_every_module_and_rebuilds_after_an_edit(tmp_path: Path) -> None:
    # Build from a fresh copy of the sources: a stale build/ directory in the checkout would hide a missing package.
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "CMakeLists.txt"):
        shutil.copy(ROOT / name, source / name)
    for package in PACKAGES:
        ignore = shutil.ignore_patterns("__pycache__", "*.so")  # a locally built core must not stand in for the build
        shutil.copytree(ROOT / package, source / package, ignore=ignore)
    out = tmp_path / "wheel"
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    build = subprocess.run([*command, str(source)], capture_output=True, text=True, check=False)
    assert build.returncode == 0, build.stderr[-2000:]
    (wheel,) = out.glob("pegchat-*.whl")
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    expected = {p.relative_to(ROOT).as_posix() for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    assert len(expected) > 50
    assert expected <= names, sorted(expected - names)
    assert {f"{package}/py.typed" for package in PACKAGES} <= names
    # The compiled core is built into the wheel, with its type stubs; its C++ sources are not shipped.
    assert any(n.startswith("gbnf_backend/engine/_native/_core.") and n.endswith(".so") for n in names), sorted(names)[
        :20
    ]
    assert "gbnf_backend/engine/_native/_core.pyi" in names
    assert not any(n.endswith((".cpp", ".hpp", ".pxd")) for n in names)
    # So are the pure-Python modules Cython compiles, each beside its source (which stays the reference).
    for name in compiled_module_names():
        path = name.replace(".", "/")
        assert any(n.startswith(path + ".") and n.endswith(".so") for n in names), f"{name} not compiled in the wheel"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "pegchat = chat_formats.cli:main" in archive.read(entry_points).decode()
    # A rebuild in the same build folder after an edit runs Cython again beside the modules built the first time:
    # none of them may shadow a module Cython imports (a built `peg/ast` once hid the standard library's `ast`).
    edited = source / "peg" / "parser.py"
    edited.write_text(edited.read_text() + "\n")
    again = subprocess.run([*command, str(source)], capture_output=True, text=True, check=False)
    assert again.returncode == 0, again.stderr[-2000:]
