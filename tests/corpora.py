"""Where the shared conformance corpora live: ``../shared/corpora`` beside the repository, or $PEGCHAT_CORPORA."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CORPORA", "SHARED"]

SHARED = Path(os.environ.get("PEGCHAT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CORPORA = Path(os.environ.get("PEGCHAT_CORPORA", SHARED / "corpora"))

if not (CORPORA / "README.md").exists():  # pragma: no cover - a misconfigured checkout, not a test outcome
    raise RuntimeError(f"conformance corpora not found at {CORPORA}; set PEGCHAT_SHARED or PEGCHAT_CORPORA")
