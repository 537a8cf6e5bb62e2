"""detect_format over real chat templates (llama.cpp's test templates) and minimal ones written per family."""

from __future__ import annotations

from pathlib import Path

import pytest

from chat_formats.formats import BUILDERS, canonical_name
from chat_formats.templates import SIGNATURES, TemplateError, detect_format

TEMPLATES = Path(__file__).resolve().parents[1] / "data" / "templates"

#: Each real template and the format it must be detected as (None: no family of ours — no tool-call syntax,
#: or, for Solar Open 100B, a call syntax no format has).
REAL: dict[str, str | None] = {
    "Apertus-8B-Instruct": "apertus",
    "Apriel-1.6-15b-Thinker-fixed": "apriel-1.6",
    "Bielik-11B-v3.0-Instruct": "qwen3",
    "ByteDance-Seed-OSS": "seed-oss",
    "Cohere2MoE": "cohere-command-4",
    "CohereForAI-c4ai-command-r-plus-tool_use": "command-r-plus",
    "CohereForAI-c4ai-command-r7b-12-2024-tool_use": "command-r7b",
    "GLM-4.6": "glm-4.5",
    "GLM-4.7-Flash": "glm-4.5",
    "GigaChat3-10B-A1.8B": "gigachat-3",
    "GigaChat3.1-10B-A1.8B": "gigachat-3",
    "HuggingFaceTB-SmolLM3-3B": None,
    "Kimi-K2-Instruct": "kimi-k2",
    "Kimi-K2-Thinking": "kimi-k2",
    "Kimi-K3": "kimi-k3",
    "LFM2-8B-A1B": "lfm2",
    "LFM2.5-8B-A1B": "lfm2",
    "LFM2.5-Instruct": "lfm2",
    "MiMo-VL": "hermes",
    "MiniMax-M1": "minimax-m1",
    "MiniMax-M2": "minimax-m2",
    "MiniMax-M3": "minimax-m3",
    "Mistral-Small-3.2-24B-Instruct-2506": "ministral-3",
    "NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": "nemotron-3",
    "NVIDIA-Nemotron-Nano-v2": "nemotron-v2",
    "NousResearch-Hermes-2-Pro-Llama-3-8B-tool_use": "hermes",
    "NousResearch-Hermes-3-Llama-3.1-8B-tool_use": "hermes",
    "Qwen-QwQ-32B": "qwen3",
    "Qwen-Qwen2.5-7B-Instruct": "hermes",
    "Qwen-Qwen3-0.6B": "qwen3",
    "Qwen3-Coder": "qwen3-coder",
    "Qwen3.5-4B": "qwen3-coder",
    "Reka-Edge": "reka",
    "Spark2.5": "spark-2.5",
    "StepFun3.5-Flash": "step-3.5",
    "deepseek-ai-DeepSeek-R1-Distill-Llama-8B": "deepseek-r1",
    "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B": "deepseek-r1",
    "deepseek-ai-DeepSeek-V3.1": "deepseek-v3.1",
    "deepseek-ai-DeepSeek-V3.2": "deepseek-v3.2",
    "deepseek-ai-DeepSeek-V4-Flash-0731": "deepseek-v4",
    "deepseek-ai-DeepSeek-V4": "deepseek-v4",
    "fireworks-ai-llama-3-firefunction-v2": "firefunction-v2",
    "google-gemma-2-2b-it": None,
    "google-gemma-4-31B-it-interleaved": "gemma-4",
    "google-gemma-4-31B-it": "gemma-4",
    "ibm-granite-granite-3.3-2B-Instruct": "granite",
    "ibm-granite-granite-4.0": "granite-4",
    "ibm-granite-granite-4.1": "granite-4",
    "inclusionai-ling-3.0-flash": "ling-3",
    "llama-cpp-deepseek-r1": "deepseek-r1",
    "llama-cpp-rwkv-world": None,
    "meetkai-functionary-medium-v3.1": "functionary-v3.1-llama-3.1",
    "meetkai-functionary-medium-v3.2": "functionary-v3.2",
    "meta-llama-Llama-3.1-8B-Instruct": "llama3",
    "meta-llama-Llama-3.2-3B-Instruct": "llama3",
    "meta-llama-Llama-3.3-70B-Instruct": "llama3",
    "microsoft-Phi-3.5-mini-instruct": None,
    "mistralai-Ministral-3-14B-Reasoning-2512": "ministral-3",
    "mistralai-Mistral-Nemo-Instruct-2407": "mistral-nemo",
    "moonshotai-Kimi-K2": "kimi-k2",
    "muse-glimmer": "muse-glimmer",
    "openai-gpt-oss-120b": "gpt-oss",
    "openbmb-MiniCPM5-1B": "minicpm-5",
    "poolside-Laguna-S-2.1": "poolside-v1",
    "poolside-Laguna-XS-2.1": "poolside-v1",
    "poolside-Laguna-XS.2": "poolside-v1",
    "tencent-Hy3": "hunyuan-hy-v3",
    "unsloth-Apriel-1.5": "apriel-1.5",
    "unsloth-mistral-Devstral-Small-2507": "ministral-3",
    "upstage-Solar-Open-100B": None,
}

#: Formats no template can name: the fallbacks; MiMo's Hermes calls, with no marker of their own; MiMo-V2-Flash's
#: Qwen3-Coder calls (no template of it at hand; its markers are Qwen3-Coder's).
UNDETECTABLE = {"generic", "content-only", "xiaomi-mimo", "mimo-v2"}


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_real_template_is_listed() -> None:
    assert {p.stem for p in (TEMPLATES / "llama.cpp").glob("*.jinja")} == set(REAL)


@pytest.mark.parametrize("stem", sorted(REAL))
def test_real_template_detected(stem: str) -> None:
    source = _source(TEMPLATES / "llama.cpp" / f"{stem}.jinja")
    want = REAL[stem]
    if want is None:
        with pytest.raises(TemplateError, match="matches none of"):
            detect_format(source)
    else:
        assert detect_format(source) == want


WRITTEN = sorted(p.stem for p in (TEMPLATES / "written").glob("*.jinja"))


@pytest.mark.parametrize("name", WRITTEN)
def test_written_template_detected(name: str) -> None:
    assert detect_format(_source(TEMPLATES / "written" / f"{name}.jinja")) == name


def test_every_format_has_a_template() -> None:
    covered = {f for f in REAL.values() if f} | set(WRITTEN)
    assert set(BUILDERS) - UNDETECTABLE <= covered, sorted(set(BUILDERS) - UNDETECTABLE - covered)


def test_every_signature_names_a_format() -> None:
    # A signature may name an alias (reka: Hermes' calls behind a prompt-opened reasoning block).
    assert all(canonical_name(s.format) is not None for s in SIGNATURES)


def test_empty_template_is_an_error() -> None:
    with pytest.raises(TemplateError, match="empty"):
        detect_format("  \n")


def test_uncompilable_template_is_searched_as_text() -> None:
    # A template that does not compile is still searched for markers (its source holds them)...
    assert detect_format("{% if x %}\n<tool_call>\n<tools>{{ oops(\n") == "hermes"
    # ...and nothing is invented for one that has none.
    with pytest.raises(TemplateError, match="matches none of"):
        detect_format("{% if x %}\nhello {{ oops(\n")


def test_detection_uses_markers_built_at_render_time() -> None:
    # The marker never occurs literally in the source: only the rendering shows it.
    source = (
        "{% set t = '<|tool_calls_section_' ~ 'begin|>' %}{% for m in messages %}{{ t }}{{ m.content }}{% endfor %}"
    )
    assert "<|tool_calls_section_begin|>" not in source
    assert detect_format(source) == "kimi-k2"
