"""gbnf_backend: GBNF grammars, the NPDA that runs them, token masks, lazy triggers and JSON Schema → GBNF.

Import from here; the modules below may move.
"""

from ._npda import NPDA, NextChars
from .errors import GrammarError, MatchLimitError, ParseError, PegchatError, SchemaError
from .grammar import Grammar

__all__ = [
    "NPDA",
    "Grammar",
    "GrammarError",
    "MatchLimitError",
    "NextChars",
    "ParseError",
    "PegchatError",
    "SchemaError",
]
