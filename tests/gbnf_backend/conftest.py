"""The tests here hold the pure-Python engine (the oracle) to its contract, internals included (``matcher._state``,
``matcher.engine``): run them on it. ``tests/native`` holds the compiled core to the same answers as this engine."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _python_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PEGCHAT_PURE_PYTHON", "1")
