"""Formats from a chat template: :func:`detect_format` names the family a Hugging Face chat template belongs to;
:func:`derive_format` builds a format for a template of no known family by rendering it and diffing the
renderings (see ``_derive.py``), with an :class:`AutoFormatReport` of what it could and could not derive.

    from chat_formats.templates import detect_format
    detect_format(tokenizer.chat_template)        # "qwen3-coder"
"""

from ._auto import DERIVED_NAME, resolve_template
from ._derive import AutoFormatReport, CallParts, derive_format
from ._detect import SIGNATURES, Signature, detect_format
from ._render import TemplateError

__all__ = [
    "DERIVED_NAME",
    "SIGNATURES",
    "AutoFormatReport",
    "CallParts",
    "Signature",
    "TemplateError",
    "derive_format",
    "detect_format",
    "resolve_template",
]
