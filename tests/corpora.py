"""Where the conformance data live: ``tests/data`` in the repository (see its README), or $PEGCHAT_CORPORA.

``SHARED`` is the project's shared folder beside the repository (``../shared``, or $PEGCHAT_SHARED) when a
checkout has one; tests never need it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CORPORA", "SHARED", "contract_format_names"]

DATA = Path(__file__).resolve().parent / "data"
SHARED = Path(os.environ.get("PEGCHAT_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CORPORA = Path(os.environ.get("PEGCHAT_CORPORA", DATA))

if not (CORPORA / "chat-samples.json").exists():  # pragma: no cover - a misconfigured checkout, not a test outcome
    raise RuntimeError(f"conformance data not found at {CORPORA}; unset PEGCHAT_CORPORA to use tests/data")


def contract_format_names() -> list[str]:
    """The canonical format names of the architecture contract: read from ``SHARED/ARCHITECTURE.md`` when the
    checkout has it (so a changed contract is noticed), else from the copy in ``tests/data``."""
    contract = SHARED / "ARCHITECTURE.md"
    if contract.exists():
        text = contract.read_text(encoding="utf-8")
        section = text[text.index("## Format names") :]
        listing = section[section.index("`") : section.index(". Their exact markers")]
        return [n.split(" (alias")[0].strip(" `\n") for n in listing.replace("\n", " ").split(",")]
    return (DATA / "contract-format-names.txt").read_text(encoding="utf-8").split()
