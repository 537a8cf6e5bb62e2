"""``detect_format``: the format of a chat template, from the markers it renders.

Detection is a table, :data:`SIGNATURES`, read top to bottom: the first signature whose markers all occur (and
whose excluded markers do not) names the format. More specific signatures come first — DSML before DeepSeek R1's
call markers, gpt-oss's harmony channels before anything else using ``<|message|>``, Ministral 3's ``[ARGS]``
before Mistral Nemo's ``[TOOL_CALLS]``. A marker is a string (found verbatim) or a compiled regex.

The text searched is the template source plus what it renders for a probe conversation (see
:func:`chat_formats.templates._probe.probe_text`): some templates build their markers at render time
(Hunyuan's ``'<tool_calls{}>'.format(suffix)``, Kimi K3's ``open_tag(…)``), and a rendering also tells apart
families whose templates differ only by what they do with the same markers (DeepSeek V3.1 writes the tool name
where R1 writes ``function``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ._probe import PROBE_TOOL, probe_text
from ._render import TemplateError

__all__ = ["SIGNATURES", "Signature", "detect_format", "match_signature"]

Marker = str | re.Pattern[str]


@dataclass(frozen=True)
class Signature:
    """A format and the markers that identify its template: all of ``all_of``, one of ``any_of`` (when
    given), none of ``none_of``."""

    format: str
    all_of: tuple[Marker, ...]
    any_of: tuple[Marker, ...] = ()
    none_of: tuple[Marker, ...] = ()

    def matches(self, text: str) -> bool:
        """Whether ``text`` carries this signature. Cost: one search per marker."""
        return (
            all(_found(m, text) for m in self.all_of)
            and (not self.any_of or any(_found(m, text) for m in self.any_of))
            and not any(_found(m, text) for m in self.none_of)
        )

    def describe(self) -> str:
        """The markers, as a short text for error messages."""
        parts = [" + ".join(_show(m) for m in self.all_of)]
        if self.any_of:
            parts.append("one of " + " | ".join(_show(m) for m in self.any_of))
        return " and ".join(parts)


def _found(marker: Marker, text: str) -> bool:
    return marker in text if isinstance(marker, str) else marker.search(text) is not None


def _show(marker: Marker) -> str:
    return repr(marker) if isinstance(marker, str) else f"/{marker.pattern}/"


_NAME = re.escape(PROBE_TOOL)
_QWEN_XML = re.compile(r"<tool_call>\s*<function=")
_HERMES_JSON = re.compile(r"<tool_call>\s*\{\s*\"name\"")
_KEY_VALUE = "<arg_key>"

SIGNATURES: tuple[Signature, ...] = (
    # Unique namespaces and token vocabularies first.
    Signature("deepseek-v4", ("｜DSML｜tool_calls",)),
    Signature("deepseek-v3.2", ("｜DSML｜",)),
    Signature("gigachat-3.5", ("｜GCML｜",)),
    Signature("kimi-k3", ("<|open|>", "<|close|>", "<|sep|>")),
    Signature("kimi-k1.5", ("◁think▷",)),
    Signature("inkling", ("<|content_invoke_tool_json|>",)),
    Signature("muse-glimmer", ("<atem:function_calls>",)),
    Signature("llm-jp-harmony", ("<|channel|>", "<|message|>"), any_of=("LLM-jp", "llm-jp", "llm_jp")),
    Signature("gpt-oss", ("<|channel|>", "<|message|>")),
    Signature("k2-horizon", ("<ifm|tool_call>",)),
    Signature("minimax-m3", ("]<]minimax[>[",)),
    Signature("minimax-m2", ("<minimax:tool_call>",)),
    Signature("minimax-m1", ("<tool_calls>", "<beginning_of_sentence>")),
    Signature("dots", ("<dots_function_call>",)),
    Signature("step-3", ("<steptml:invoke",)),
    Signature("seed-oss", ("<seed:tool_call>",)),
    Signature("longcat", ("<longcat_tool_call>",)),
    Signature("solar-open-2", ("<|tool_arg:start|>",)),
    Signature("intern-s1", ("<|action_start|>", "<|plugin|>", "<think>")),
    Signature("internlm2", ("<|action_start|>", "<|plugin|>")),
    Signature("kimi-k2", ("<|tool_calls_section_begin|>",)),
    Signature("functiongemma", ("<start_function_call>",)),
    Signature("gemma-4", ("<|tool_call>",)),
    Signature("apertus", ("<|tools_prefix|>",)),
    Signature("nemotron-v2", ("<TOOLCALL>",)),
    Signature("telechat-4", ("<param_key>",)),
    # DeepSeek's full-width call markers: V3.1 writes the name after the call opener, R1 and V3 the type.
    Signature("deepseek-v3.1", (re.compile(rf"<｜tool▁call▁begin｜>{_NAME}<｜tool▁sep｜>"),)),
    Signature("deepseek-r1", ("<｜tool▁calls▁begin｜>", "</think>")),
    Signature("deepseek-v3", ("<｜tool▁calls▁begin｜>",)),
    Signature("step-3", ("<｜tool_calls_begin｜>",)),
    # Mistral: [ARGS] (v11+ tokenizers) before the JSON-array generation; [THINK] without [ARGS] is Magistral 1.x.
    Signature("ministral-3", ("[TOOL_CALLS]", "[ARGS]")),
    Signature("magistral", ("[TOOL_CALLS]", "[THINK]")),
    Signature("mistral-nemo", ("[TOOL_CALLS]",)),
    # Cohere: the answer markers tell the generations apart.
    Signature("cohere-command-4", ("<|START_ACTION|>", "<|START_TEXT|>")),
    Signature("command-r7b", ("<|START_ACTION|>",)),
    Signature("command-r-plus", ("<|START_OF_TURN_TOKEN|>", "Action:")),
    # Llama 3 headers: Functionary, FireFunction, then Llama's own JSON calls.
    Signature("functionary-v3.2", ("<|start_header_id|>", ">>>")),
    Signature("functionary-v3.1-llama-3.1", ("<|start_header_id|>", "<function=")),
    Signature("firefunction-v2", ("<|start_header_id|>", "functools")),
    Signature("llama3", ("<|start_header_id|>",), any_of=("<|python_tag|>", re.compile(r"\"parameters\": "))),
    Signature("pythonic", ("<|python_start|>",)),
    Signature("phi-4-mini", ("functools[",)),
    # Harmony-free role-token families.
    Signature("gigachat-3", ("<|role_sep|>",), any_of=("function call", "<|function_call|>")),
    Signature("granite-3.2", ("<|start_of_role|>", "Here is my thought process:")),
    Signature("granite", ("<|start_of_role|>", "<|tool_call|>")),
    Signature("granite-4", ("<|start_of_role|>", "<tool_call>")),
    Signature("granite-20b-fc", ("<function_call>",)),
    Signature("jamba", ("<tool_calls>", "<|bom|>")),
    Signature("apriel-1.6", ("<tool_calls>", "<|begin_assistant|>")),
    Signature("apriel-1.5", ("<tool_calls>", "<|assistant|>")),
    Signature("hunyuan-hy-v3", ("<tool_sep", "arg_key")),
    Signature("hunyuan-a13b", ("<tool_calls>", "<answer>")),
    Signature("lfm2", (), any_of=("<|tool_call_start|>", "<|tool_list_start|>", "List of tools: [")),
    Signature("olmo-3", (re.compile(r"(?<![:｜])<function_calls>"),)),
    Signature("minicpm-5", ("<function name=", "<param name=")),
    # GLM's key/value tags: the families that share them differ by their role markers.
    Signature("ling-3", (_KEY_VALUE, "<role>")),
    Signature("spark-2.5", (_KEY_VALUE, "<|Bot|>")),
    Signature("poolside-v1", (_KEY_VALUE, "<available_tools>")),
    Signature("glm-4.5", (_KEY_VALUE,)),
    # Qwen3-Coder's XML calls: Nemotron 3 and Step 3.5 write the same calls.
    Signature("nemotron-3", ("<function=", "truncate_history_thinking")),
    Signature("step-3.5", ("<function=",), any_of=("<|im_start|>tool_response", "<im_patch>")),
    Signature("qwen3-coder", (_QWEN_XML,)),
    # Hermes' JSON calls in <tool_call>: relatives by their role markers, then reasoning or not.
    Signature("ernie-4.5", (_HERMES_JSON,), any_of=("ERNIE", "<|begin_of_sentence|>")),
    Signature("reka", ("<tool_call>", "<sep>")),
    Signature("xlam", ("xLAM",)),
    Signature("qwen3", (_HERMES_JSON, "<think>")),
    Signature("hermes", (_HERMES_JSON,)),
    Signature("hermes", ("<tool_call>", "<tools>")),
)


def match_signature(text: str) -> str | None:
    """The format of the first signature found in ``text`` (template source and renderings), or None."""
    for sig in SIGNATURES:
        if sig.matches(text):
            return sig.format
    return None


def detect_format(chat_template: str) -> str:
    """The canonical format name for a chat template (the Jinja source a model's ``tokenizer_config.json``
    holds), recognised by the markers the template writes and renders.

    Raises :class:`TemplateError` when no known family's markers are found (the message lists what was looked
    for); :func:`chat_formats.templates.derive_format` then derives a format from the template itself.
    Cost: a few renderings of the template plus one scan per signature.
    """
    if not isinstance(chat_template, str) or not chat_template.strip():
        raise TemplateError("empty chat template: nothing to detect")
    text = chat_template + "\n" + probe_text(chat_template)
    found = match_signature(text)
    if found is None:
        looked = "; ".join(f"{s.format}: {s.describe()}" for s in SIGNATURES[:12])
        raise TemplateError(
            f"chat template matches none of the {len(SIGNATURES)} known format signatures "
            f"(looked for e.g. {looked}; …); derive a format with derive_format()"
        )
    return found
