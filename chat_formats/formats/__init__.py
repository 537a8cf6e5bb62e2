"""The format registry: canonical names (and aliases) → the module function that builds a definition.

Each family is a small declarative module in this package; adding a format is one entry here.
"""

from __future__ import annotations

from collections.abc import Callable

from . import deepseek_r1, functionary, gpt_oss, hermes, kimi_k2, llama, mistral, qwen3_coder
from ._layout import FormatDefinition, FormatOptions

__all__ = ["ALIASES", "BUILDERS", "Builder", "canonical_name"]

Builder = Callable[[FormatOptions], FormatDefinition]

BUILDERS: dict[str, Builder] = {
    "hermes": hermes.build_hermes,
    "qwen3": hermes.build_qwen3,
    "qwen3-coder": qwen3_coder.build,
    "deepseek-r1": deepseek_r1.build,
    "mistral-nemo": mistral.build_nemo,
    "ministral-3": mistral.build_ministral3,
    "gpt-oss": gpt_oss.build,
    "kimi-k2": kimi_k2.build,
    "llama3": llama.build_llama3,
    "functionary-v3.1-llama-3.1": functionary.build_v3_1,
    "functionary-v3.2": functionary.build_v3_2,
    "firefunction-v2": llama.build_firefunction_v2,
}

ALIASES: dict[str, str] = {"qwen2.5": "hermes", "functionary-v3.1": "functionary-v3.1-llama-3.1"}


def canonical_name(name: str) -> str | None:
    """The canonical format name for ``name`` (a canonical name or an alias), or None if unknown."""
    if name in BUILDERS:
        return name
    return ALIASES.get(name)
