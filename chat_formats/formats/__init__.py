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
    cohere,
    command_r,
    content_only,
    deepseek_dsml,
    deepseek_r1,
    functionary,
    gemma,
    generic,
    gigachat,
    glm,
    glm_kin,
    gpt_oss,
    granite,
    hermes,
    hermes_kin,
    hunyuan,
    inkling,
    json_calls,
    json_wrapped,
    k2_horizon,
    kimi_k2,
    kimi_xtml,
    llama,
    llm_jp,
    minicpm,
    minimax,
    minimax_m1_m3,
    mistral,
    muse_glimmer,
    nemotron,
    olmo,
    phrases,
    pythonic,
    qwen3_coder,
    seed_oss,
    solar,
    step3,
    telechat,
    xml_invoke,
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
    "gemma-4": gemma.build_gemma4,
    "functiongemma": gemma.build_functiongemma,
    "gigachat-3": gigachat.build_v3,
    "gigachat-3.5": gigachat.build_v35,
    "granite-3.2": phrases.build_granite32,
    "apriel-1.6": phrases.build_apriel16,
    "cohere-command-4": cohere.build_command4,
    "command-r-plus": cohere.build_command_r_plus,
    "inkling": inkling.build,
    "k2-horizon": k2_horizon.build,
    "muse-glimmer": muse_glimmer.build,
    "llm-jp-harmony": llm_jp.build,
    "telechat-4": telechat.build,
    "deepseek-v3": deepseek_dsml.V3,
    "deepseek-v3.2": deepseek_dsml.V32,
    "deepseek-v4": deepseek_dsml.V4,
    "kimi-k3": kimi_xtml.build_k3,
    "kimi-k1.5": kimi_xtml.build_k15,
    "minimax-m3": minimax_m1_m3.build_m3,
    "minimax-m1": minimax_m1_m3.M1,
    "step-3": step3.build,
    "hunyuan-hy-v3": hunyuan.HY_V3,
    "hunyuan-a13b": hunyuan.build_a13b,
    "dots": xml_invoke.DOTS,
    "ling-3": xml_invoke.build_ling3,
    "longcat": json_wrapped.LONGCAT,
    "internlm2": json_wrapped.INTERNLM2,
    "intern-s1": json_wrapped.INTERN_S1,
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
WITHOUT_CALLS: frozenset[str] = frozenset({"content-only", "kimi-k1.5"})

ALIASES: dict[str, str] = {
    "qwen2.5": "hermes",
    "glm-4.6": "glm-4.5",
    "glm-4.7": "glm-4.5",
    "functionary-v3.1": "functionary-v3.1-llama-3.1",
    "gigachat-3.1": "gigachat-3",
    "cohere2-moe": "cohere-command-4",
    "deepseek-v3-0324": "deepseek-v3",
    "minimax-text-01": "minimax-m1",
    "bailing-v3": "ling-3",
    "longcat-flash": "longcat",
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
