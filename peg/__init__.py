"""pegchat's PEG layer: one combinator definition gives a streaming partial parser and an exact GBNF grammar.

Import from here; the underscore modules may change. A chat format, for example::

    from peg import atomic, end, json, optional, tag, to_gbnf, lazy_grammar, trigger_rule, until, zero_or_more
    call = trigger_rule("tool-call", "<tool_call>" << tag("tool-args", json()) << "</tool_call>")
    fmt = (optional("<think>" + tag("reasoning", until("</think>")) + "</think>")
           + tag("content", until("<tool_call>")) + zero_or_more(call) + end())

    r = fmt.parse(text)                 # or fmt.parse(text, partial=True) while the text may still grow
    r.status, r.end, r.nodes, r.error   # Status.SUCCESS/FAIL/NEED_MORE_INPUT; AST; ParseError on failure
    r.find("tool-args")[0].text         # nodes: .tag .rule .start .end .text .partial .children

    s = fmt.stream()                    # incremental: each feed costs what is new
    s.feed(piece) -> ParseResult;  s.finish() -> ParseResult

    to_gbnf(fmt)                        # exact grammar (root = the whole format)
    g = lazy_grammar(fmt)               # only what trigger rules reach; root ::= trigger-a | trigger-b
    g.gbnf, g.trigger_words             # ("<tool_call>",): the literal text each trigger rule starts with
    to_json(fmt) / from_json(text)      # ship a built parser to whatever parses the output
    fmt.walk()                          # read a built graph (every node once); node classes: peg.nodes

End-of-input rules (``partial=True``): a literal, JSON value or ``until`` cut off by the end needs more input;
a cut-off prefix of an ``until`` delimiter is held back (neither text nor marker); a JSON number touching the
end needs more input; so does a ``chars`` run that reaches the end and could still grow (its upper bound not
reached), so ids and digits never stream half; a dangling string escape is left out of the matched text;
repetitions, ``space`` and ``end`` succeed at the end without probing (success in partial mode does not mean
complete). ``space(max=n)`` bounds whitespace identically in parser and grammar. A failed parse still has
``nodes``: those of the longest prefix that parsed (see :class:`ParseResult`).
``atomic(p)`` produces no nodes while ``p`` is incomplete (use it for names and markers). On a final parse,
``until`` without its delimiter matches the rest (``strict=True`` fails instead).

Rule names: user names are sanitised to ``[A-Za-z0-9-]`` and may not contain ``--`` or be ``root``/``space``;
every generated GBNF rule contains ``--`` (``json--value``, ``peg--space``, ``tool-call--until-1``, schema
rules prefixed ``schema-``). Exactness limits of the grammar are listed in :mod:`peg.gbnf`; look-aheads
(``peek``/``negate``) have no GBNF form and warn (:class:`GrammarWarning`) unless built with ``implied=True``.
"""

from . import combinators, nodes
from ._nodes import Parser
from .ast import AstNode, ParseResult, Status
from .combinators import *  # noqa: F403  (the combinator DSL: the names in combinators.__all__)
from .errors import GrammarError, ParseError, PegchatError, StreamClosedError
from .gbnf import GrammarWarning, LazyGrammar, lazy_grammar, to_gbnf, trigger_words
from .parser import CLOSES, ENDS, OPENS, Growth, QuietTags, Stream
from .serialize import from_json, to_json

__all__ = [
    "CLOSES",
    "ENDS",
    "OPENS",
    "AstNode",
    "GrammarError",
    "GrammarWarning",
    "Growth",
    "LazyGrammar",
    "ParseError",
    "ParseResult",
    "Parser",
    "PegchatError",
    "QuietTags",
    "Status",
    "Stream",
    "StreamClosedError",
    "from_json",
    "lazy_grammar",
    "nodes",
    "to_gbnf",
    "to_json",
    "trigger_words",
]
__all__ += combinators.__all__
