"""The format registry: canonical names (and aliases) → the module function that builds a definition.

Each family is a small declarative module in this package (most are one :class:`~._layout.Layout` value;
see ``_layout.py`` for how to add a format); adding a format is one entry here.
"""

from __future__ import annotations

from collections.abc import Callable

from . import (
    apertus,
    apriel,
    coder_xml,
    command_r,
    content_only,
    deepseek_r1,
    functionary,
    generic,
    glm,
    glm_kin,
    gpt_oss,
    granite,
    hermes,
    hermes_kin,
    json_calls,
    kimi_k2,
    llama,
    minicpm,
    minimax,
    mistral,
    nemotron,
    olmo,
    pythonic,
    qwen3_coder,
    seed_oss,
    solar,
)
from ._layout import FormatDefinition, FormatOptions

__all__ = ["ALIASES", "BUILDERS", "WITHOUT_CALLS", "Builder", "canonical_name"]

Builder = Callable[[FormatOptions], FormatDefinition]

BUILDERS: dict[str, Builder] = {
    "hermes": hermes.HERMES,
    "qwen3": hermes.QWEN3,
    "qwen3-coder": qwen3_coder.FORMAT,
    "deepseek-r1": deepseek_r1.R1,
    "mistral-nemo": mistral.NEMO,
    "ministral-3": mistral.MINISTRAL3,
    "gpt-oss": gpt_oss.build,
    "kimi-k2": kimi_k2.FORMAT,
    "deepseek-v3.1": deepseek_r1.V31,
    "granite": granite.FORMAT,
    "command-r7b": command_r.FORMAT,
    "nemotron-v2": nemotron.FORMAT,
    "apertus": apertus.FORMAT,
    "apriel-1.5": apriel.FORMAT,
    "generic": generic.build,
    "content-only": content_only.build,
    "magistral": mistral.MAGISTRAL,
    "pythonic": pythonic.build_pythonic,
    "lfm2": pythonic.build_lfm2,
    "glm-4.5": glm.FORMAT,
    "minimax-m2": minimax.FORMAT,
    "seed-oss": seed_oss.FORMAT,
    "xiaomi-mimo": hermes.MIMO,
    "llama3": llama.build_llama3,
    "functionary-v3.1-llama-3.1": functionary.build_v3_1,
    "functionary-v3.2": functionary.build_v3_2,
    "firefunction-v2": llama.build_firefunction_v2,
    "step-3.5": coder_xml.build_step35,
    "nemotron-3": coder_xml.build_nemotron3,
    "poolside-v1": glm_kin.build_poolside_v1,
    "spark-2.5": glm_kin.build_spark25,
    "minicpm-5": minicpm.build,
    "ernie-4.5": hermes_kin.build_ernie45,
    "granite-4": hermes_kin.build_granite4,
    "olmo-3": olmo.build,
    "xlam": json_calls.build_xlam,
    "jamba": json_calls.build_jamba,
    "phi-4-mini": json_calls.build_phi4_mini,
    "granite-20b-fc": json_calls.build_granite_20b_fc,
    "solar-open-2": solar.build,
}

#: Formats with no tool-call syntax: a request that forces a call cannot be honoured by them.
WITHOUT_CALLS: frozenset[str] = frozenset({"content-only"})

ALIASES: dict[str, str] = {
    "qwen2.5": "hermes",
    "glm-4.6": "glm-4.5",
    "glm-4.7": "glm-4.5",
    "functionary-v3.1": "functionary-v3.1-llama-3.1",
    # Same syntax; only how the prompt opens the reasoning differs (thinking_forced_open).
    "reka": "hermes",
    "holo2": "hermes",
    "arcee-trinity": "qwen3",
}


def canonical_name(name: str) -> str | None:
    """The canonical format name for ``name`` (a canonical name or an alias), or None if unknown."""
    if name in BUILDERS:
        return name
    return ALIASES.get(name)
