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

End-of-input rules (``partial=True``): a literal, JSON value or ``until`` cut off by the end needs more input;
a cut-off prefix of an ``until`` delimiter is held back (neither text nor marker); a JSON number touching the
end needs more input; a dangling string escape is left out of the matched text; repetitions, ``space``,
``chars`` and ``end`` succeed at the end without probing (success in partial mode does not mean complete).
``atomic(p)`` produces no nodes while ``p`` is incomplete (use it for names and markers). On a final parse,
``until`` without its delimiter matches the rest (``strict=True`` fails instead).

Rule names: user names are sanitised to ``[A-Za-z0-9-]`` and may not contain ``--`` or be ``root``/``space``;
every generated GBNF rule contains ``--`` (``json--value``, ``peg--space``, ``tool-call--until-1``, schema
rules prefixed ``schema-``). Exactness limits of the grammar are listed in :mod:`peg.gbnf`.
"""

from ._nodes import Parser
from .ast import AstNode, ParseResult, Status
from .combinators import (
    any_char,
    atomic,
    chars,
    choice,
    end,
    eps,
    json,
    json_array,
    json_bool,
    json_member,
    json_null,
    json_number,
    json_object,
    json_string,
    json_string_content,
    literal,
    negate,
    one_or_more,
    optional,
    peek,
    ref,
    repeat,
    rest,
    rule,
    sanitize_rule_name,
    schema,
    sequence,
    space,
    start,
    tag,
    trigger_rule,
    until,
    until_one_of,
    zero_or_more,
)
from .gbnf import LazyGrammar, lazy_grammar, to_gbnf, trigger_words
from .parser import Stream
from .serialize import from_json, to_json

__all__ = [
    "AstNode",
    "LazyGrammar",
    "ParseResult",
    "Parser",
    "Status",
    "Stream",
    "any_char",
    "atomic",
    "chars",
    "choice",
    "end",
    "eps",
    "from_json",
    "json",
    "json_array",
    "json_bool",
    "json_member",
    "json_null",
    "json_number",
    "json_object",
    "json_string",
    "json_string_content",
    "lazy_grammar",
    "literal",
    "negate",
    "one_or_more",
    "optional",
    "peek",
    "ref",
    "repeat",
    "rest",
    "rule",
    "sanitize_rule_name",
    "schema",
    "sequence",
    "space",
    "start",
    "tag",
    "to_gbnf",
    "to_json",
    "trigger_rule",
    "trigger_words",
    "until",
    "until_one_of",
    "zero_or_more",
]
