"""The format registry: canonical names (and aliases) → the module function that builds a definition.

Each family is a small declarative module in this package; adding a format is one entry here.
"""

from __future__ import annotations

from collections.abc import Callable

from . import deepseek_r1, glm, gpt_oss, hermes, kimi_k2, minimax, mistral, qwen3_coder, seed_oss
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
    "glm-4.5": glm.build,
    "minimax-m2": minimax.build,
    "seed-oss": seed_oss.build,
    "xiaomi-mimo": hermes.build_mimo,
}

ALIASES: dict[str, str] = {"qwen2.5": "hermes", "glm-4.6": "glm-4.5", "glm-4.7": "glm-4.5"}


def canonical_name(name: str) -> str | None:
    """The canonical format name for ``name`` (a canonical name or an alias), or None if unknown."""
    if name in BUILDERS:
        return name
    return ALIASES.get(name)
