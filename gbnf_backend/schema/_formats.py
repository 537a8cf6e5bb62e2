"""Grammars for the string ``format`` values the converter enforces.

Each format is the content of a JSON string (between the quotes), spelled with raw ASCII characters only.
The grammars follow the defining RFCs and are *never wider* than the format: where the exact language is
awkward to state in a context-free grammar the grammar is narrower, which can only reject a valid value:

* ``date`` (RFC 3339 full-date): month lengths and leap years exact; year 0000 refused (Python cannot
  represent it).
* ``time`` / ``date-time`` (RFC 3339): offset required; leap seconds (``:60``) refused.
* ``duration`` (RFC 3339 appendix A): exact.
* ``uuid`` (RFC 4122 text form): exact, either case.
* ``hostname`` (RFC 1123): labels of letters, digits and inner hyphens (``a--b``, ``ab---c``); no ``xn--``
  labels (their Punycode cannot be checked); the first label up to 63 characters, then up to five of at most
  37 (≤ 253 in total).
* ``email`` (RFC 5321): dot-atom or quoted local part, ``@``, a host name or an address literal
  (``[127.0.0.1]``, ``[IPv6:::1]``).
* ``ipv4`` (dotted quad, no leading zeros), ``ipv6`` (RFC 4291 text forms, no zone), ``uri`` (RFC 3986
  absolute URI with an optional fragment; IPvFuture literals refused), ``uri-reference`` (a URI or a relative
  reference), ``uri-template`` (RFC 6570 level 4), ``json-pointer`` (RFC 6901) and ``relative-json-pointer``
  (a non-negative integer then ``#`` or a JSON pointer; no index manipulation).
* ``idn-hostname`` (ASCII lowercase labels only, no ``--`` in positions 3–4, at most 3 labels),
  ``idn-email``/``iri``/``iri-reference`` (their ASCII forms: ``email``, ``uri``, ``uri-reference``) and
  ``regex`` (strings without metacharacters or escapes): narrower than the formats, never wider.
"""

from __future__ import annotations

from ._text import charset, complement, json_char_expr

__all__ = ["FORMATS", "format_rules"]

_A = "[a-zA-Z0-9]"
_L = "[a-zA-Z0-9-]"
_HEX = "[0-9a-fA-F]"
_UNRESERVED = "[a-zA-Z0-9._~-]"
_SUB_DELIMS = "[!$&'()*+,;=]"
_PCT = f'"%" {_HEX} {_HEX}'

_POINTER_CHAR = json_char_expr(complement(charset([(ord("/"), ord("/")), (ord("~"), ord("~"))]))) or ""


def _label(n: int) -> str:
    """A host name label of at most ``n`` letters, digits and inner hyphens; ``xn`` labels (IDNA A-labels,
    whose Punycode a grammar cannot check) may not continue with ``--``."""
    other = f"[a-wyzA-WYZ0-9] ({_L}{{0,{n - 2}}} {_A})?"
    x_not_n = f"[xX] ([a-mo-zA-MO-Z0-9] | [a-mo-zA-MO-Z0-9-] {_L}{{0,{n - 3}}} {_A})?"
    xn = f'[xX] [nN] ({_A} ({_L}{{0,{n - 4}}} {_A})? | "-" {_A} ({_L}{{0,{n - 5}}} {_A})?)?'
    return f"{other} | {x_not_n} | {xn}"


# Rule bodies keyed by the primitive's suffix; "@x" refers to the primitive x of the same family.
_BODIES: dict[str, str] = {
    "year": '[1-9] [0-9]{3} | "0" ([1-9] [0-9]{2} | "0" ([1-9] [0-9] | "0" [1-9]))',
    "leap-year": '[0-9] [0-9] ("0" [48] | [2468] [048] | [13579] [26]) | ("0" [48] | [2468] [048] | [13579] [26]) "00"',
    "date": '@year "-" ("0" [13578] | "1" [02]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) | '
    '@year "-" ("0" [469] | "11") "-" ("0" [1-9] | [12] [0-9] | "30") | '
    '@year "-02-" ("0" [1-9] | "1" [0-9] | "2" [0-8]) | @leap-year "-02-29"',
    "time": '([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]+)? '
    '([Zz] | [+-] ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9])',
    "date-time": "@date [Tt] @time",
    "dur-time": '"T" ([0-9]+ "H" ([0-9]+ "M" ([0-9]+ "S")?)? | [0-9]+ "M" ([0-9]+ "S")? | [0-9]+ "S")',
    "duration": '"P" (([0-9]+ "Y" ([0-9]+ "M" ([0-9]+ "D")?)? | [0-9]+ "M" ([0-9]+ "D")? | [0-9]+ "D") '
    '@dur-time? | @dur-time | [0-9]+ "W")',
    "uuid": f'{_HEX}{{8}} "-" {_HEX}{{4}} "-" {_HEX}{{4}} "-" {_HEX}{{4}} "-" {_HEX}{{12}}',
    "label63": _label(63),
    "label37": _label(37),
    "hostname": '@label63 ("." @label37){0,5}',
    # RFC 5321: a dot-atom or a quoted string (its quote and backslash JSON-escaped), then a host name or an
    # address literal.
    "atext": "[a-zA-Z0-9!#$%&'*+/=?^_`{|}~-]",
    "quoted-local": r'"\\\"" ([ !#-\[\]-~] | "\\\\" ("\\\\" | "\\\"" | [ -!#-\[\]-~]))* "\\\""',
    "email": '(@atext+ ("." @atext+)* | @quoted-local) "@" (@hostname | "[" @ipv4 "]" | "[IPv6:" @ipv6 "]")',
    "dec-octet": '[0-9] | [1-9] [0-9] | "1" [0-9] [0-9] | "2" [0-4] [0-9] | "25" [0-5]',
    "ipv4": '@dec-octet "." @dec-octet "." @dec-octet "." @dec-octet',
    "h16": f"{_HEX}{{1,4}}",
    "ls32": '@h16 ":" @h16 | @ipv4',
    "ipv6": '(@h16 ":"){6} @ls32 | "::" (@h16 ":"){5} @ls32 | @h16? "::" (@h16 ":"){4} @ls32 | '
    '((@h16 ":"){0,1} @h16)? "::" (@h16 ":"){3} @ls32 | '
    '((@h16 ":"){0,2} @h16)? "::" (@h16 ":"){2} @ls32 | '
    '((@h16 ":"){0,3} @h16)? "::" @h16 ":" @ls32 | ((@h16 ":"){0,4} @h16)? "::" @ls32 | '
    '((@h16 ":"){0,5} @h16)? "::" @h16 | ((@h16 ":"){0,6} @h16)? "::"',
    "pchar": f"{_UNRESERVED} | {_PCT} | {_SUB_DELIMS} | [:@]",
    "uri-authority": f'(({_UNRESERVED} | {_PCT} | {_SUB_DELIMS} | ":")* "@")? '
    f'("[" @ipv6 "]" | ({_UNRESERVED} | {_PCT} | {_SUB_DELIMS})*) (":" [0-9]*)?',
    "uri": '[a-zA-Z] [a-zA-Z0-9+.-]* ":" ("//" @uri-authority ("/" @pchar*)* | "/" (@pchar+ ("/" @pchar*)*)? '
    '| @pchar+ ("/" @pchar*)* | "") ("?" (@pchar | [/?])*)? ("#" (@pchar | [/?])*)?',
    # RFC 3986 relative-ref: a first path segment without ":" (so it cannot be read as a scheme).
    "segment-nc": f'({_UNRESERVED} | {_PCT} | {_SUB_DELIMS} | "@")+',
    "relative-ref": '("//" @uri-authority ("/" @pchar*)* | "/" (@pchar+ ("/" @pchar*)*)? | @segment-nc ("/" @pchar*)* '
    '| "") ("?" (@pchar | [/?])*)? ("#" (@pchar | [/?])*)?',
    "uri-reference": "@uri | @relative-ref",
    # RFC 6570 level 4. Literals: printable ASCII other than the excluded ones (so no JSON escape is
    # involved) or raw non-ASCII characters; expressions with an operator and modifiers.
    "tpl-literal": f"[!#$&'()*+,./0-9:;=?@A-Z\\[\\]_a-z~-] | [\\x80-\\U0010FFFF] | {_PCT}",
    "tpl-varchar": f"[a-zA-Z0-9_] | {_PCT}",
    "tpl-varspec": '@tpl-varchar ("."? @tpl-varchar)* (":" [1-9] [0-9]{0,3} | "*")?',
    "tpl-expression": '"{" [+#./;?&=,!@|]? @tpl-varspec ("," @tpl-varspec)* "}"',
    "uri-template": "(@tpl-literal | @tpl-expression)*",
    # RFC 6901: reference tokens of any characters, "~" only as "~0" or "~1"; @pointer-char is every JSON
    # spelling of a character other than "/" and "~".
    "json-pointer": '("/" (@pointer-char | "~" [01])*)*',
    "relative-json-pointer": '("0" | [1-9] [0-9]*) ("#" | @json-pointer)',
    "pointer-char": _POINTER_CHAR,
    # IDNA labels: lowercase letters, digits and inner hyphens, never "--" in positions 3-4 (IDNA 2008
    # refuses upper case and those hyphens; non-ASCII labels are refused, which only narrows).
    "idn-label": "[a-z0-9] ([a-z0-9] | [a-z0-9-] [a-z0-9] | [a-z0-9-] [a-z0-9] [a-z0-9-]{0,59} [a-z0-9] "
    '| [a-z0-9-] "-" [a-z0-9] ([a-z0-9-]{0,58} [a-z0-9])?)?',
    "idn-hostname": '@idn-label ("." @idn-label){0,2}',
    "idn-email": "@email",
    "iri": "@uri",
    "iri-reference": "@uri-reference",
    # A pattern of plain characters only (no metacharacter, no escape): always a valid regular expression.
    "regex": '[^\\\\^$.|?*+()\\[\\]{}"\\x00-\\x1f]*',
}

# The public format names and the primitive that spells each.
FORMATS = (
    "date",
    "time",
    "date-time",
    "duration",
    "uuid",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "idn-hostname",
    "idn-email",
    "iri",
    "iri-reference",
    "regex",
)


def format_rules(fmt: str, prefix: str) -> tuple[str, dict[str, str]]:
    """Return (rule name for the content of format ``fmt``, every rule it needs by name).

    Rule names are ``{prefix}json--fmt-<part>``; bodies depend only on the format, so rules of several
    schemas can be merged. Cost: O(size of the format's grammar). Raises KeyError for unknown formats.
    """
    if fmt not in FORMATS:
        raise KeyError(fmt)
    rules: dict[str, str] = {}
    _add_format_part(fmt, prefix, rules)
    return _format_rule_name(fmt, prefix), rules


def _format_rule_name(part: str, prefix: str) -> str:
    return f"{prefix}json--fmt-{part}"


def _add_format_part(part: str, prefix: str, rules: dict[str, str]) -> None:
    """Add the rule of ``part`` and (first) of every part its body names with ``@``. (A module function: a nested
    one calling itself would sit in a reference cycle until the cyclic collector ran.)"""
    name = _format_rule_name(part, prefix)
    if name in rules:
        return
    body = _BODIES[part]
    rules[name] = ""
    out = []
    i = 0
    while i < len(body):
        if body[i] == "@" and (i == 0 or body[i - 1] in " (|"):
            j = i + 1
            while j < len(body) and (body[j].isalnum() or body[j] == "-"):
                j += 1
            ref = body[i + 1 : j]
            _add_format_part(ref, prefix, rules)
            out.append(_format_rule_name(ref, prefix))
            i = j
        else:
            out.append(body[i])
            i += 1
    rules[name] = "".join(out)
