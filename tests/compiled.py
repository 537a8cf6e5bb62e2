"""What the compiled-module tests share (a plain module, not collected): the list of modules Cython compiles, and
what streaming a list of cases gives — run both in this process and in one that imports only the ``.py`` sources."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from chat_formats import ChatDelta, get_format
from tests.chat_formats.support import as_message_dict

__all__ = ["ROOT", "SALT", "compiled_module_names", "outcomes"]

ROOT = Path(__file__).resolve().parents[1]
SALT = "0123456789abcdef"


def compiled_module_names() -> list[str]:
    """The dotted names CMakeLists.txt asks Cython to compile."""
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    block = re.search(r"^set\(PEGCHAT_COMPILED_MODULES(.*?)\)", text, re.S | re.M)
    assert block is not None, "CMakeLists.txt lists PEGCHAT_COMPILED_MODULES"
    return [path.replace("/", ".") for path in block.group(1).split()]


def outcomes(cases: list[dict[str, Any]]) -> list[Any]:
    """For each case: every delta of the stream (as dicts), the streamed message and the one-shot parse (``SALT``;
    the caller makes the streams draw it too)."""
    results: list[Any] = []
    formats: dict[str, Any] = {}
    for case in cases:
        key = json.dumps([case["format"], case["options"]], sort_keys=True)
        fmt = formats.get(key) or formats.setdefault(key, get_format(case["format"], **case["options"]))
        stream = fmt.stream()
        deltas: list[ChatDelta] = []
        for piece in case["pieces"]:
            deltas += stream.feed(piece)
        deltas += stream.finish()
        results.append(
            [
                [d.model_dump() for d in deltas],
                as_message_dict(stream.message),
                as_message_dict(fmt.parse(case["text"], salt=SALT)),
            ]
        )
    return results
