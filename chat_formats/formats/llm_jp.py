"""LLM-jp 4.1 (``llm-jp-harmony``): the harmony format of ``gpt-oss`` in LLM-jp's dialect::

    <|channel|> analysis<|message|> …reasoning…<|end|><|start|> assistant<|channel|> commentary
    to=functions.get_weather<|message|> {"city": "Paris"}<|end|><|start|> assistant<|channel|> commentary
    to=functions.add<|message|> {"a": 1, "b": 2}<|call|>

(one line in the output; split here for width). Its tokenizer writes a space after every special token (one
space after ``<|message|>`` is framing, further ones belong to the body), and parallel calls are consecutive
messages, all but the last closed by ``<|end|>``. Everything else is read as ``gpt-oss`` reads it (shared code:
:func:`chat_formats.formats.gpt_oss.build_harmony`).
"""

from __future__ import annotations

from ._layout import FormatDefinition, FormatOptions
from .gpt_oss import CALL, END, HarmonyDialect, build_harmony

__all__ = ["LLM_JP", "build"]

LLM_JP = HarmonyDialect(spaced=True, call_ends=(CALL, END), calls_together=True)


def build(options: FormatOptions) -> FormatDefinition:
    """The ``llm-jp-harmony`` definition for ``options``."""
    return build_harmony(options, LLM_JP)
