# cython: annotation_typing=False
"""A resumable JSON scanner: the parser side of :func:`peg.json` and friends.

JSON is scanned natively (not through combinators) with an explicit container stack, so 100,000 nested arrays
cost no Python recursion, and long strings and numbers are matched by C-level regular expressions. The
language is exactly the one of the emitted GBNF rules (``gbnf.py``: ``json--value`` ...): RFC 8259 values,
whitespace ``[ \\t\\n\\r]*`` only inside containers, no raw control characters in strings.

When the scan reaches the end of the input, it returns a *resume state* so a streaming parse can continue
from there instead of re-scanning the value (see ``_packrat.py``). Partial-input rules: a value cut anywhere
needs more input; a number touching the end needs more input (it may still grow); a dangling escape
(``\\``, ``\\u12``) or a cut literal (``tr``) is left out of the matched text and re-scanned when more text
arrives.
"""

from __future__ import annotations

import re

from . import _compiled

__all__ = ["ESCAPE_PREFIX", "STRING_BODY", "STRING_MODE", "Containers", "JsonResume", "scan_brackets", "scan_json"]

SUCCESS, FAIL, MORE = 0, 1, 2

_WS = re.compile(r"[ \t\n\r]*")
_CHAR = r'[^"\\\x00-\x1f\ud800-\udfff]'
_STR_BODY = re.compile(rf'{_CHAR}*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{{4}}){_CHAR}*)*')
_ESCAPE_PREFIX = re.compile(r"\\(?:u[0-9a-fA-F]{0,3})?\Z")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
# The longest text that could still grow into a number: used to decide whether a number touches the end.
_NUMBER_PREFIX = re.compile(r"-?(?:0|[1-9][0-9]*)?(?:\.[0-9]*)?(?:[eE][+-]?[0-9]*)?")
_WS_CHARS = " \t\n\r"
_WORDS = {"t": "true", "f": "false", "n": "null"}
# Compiled, the scanner reads strings, whitespace and numbers with the character loops below (a regular expression
# call costs a method look-up, a match object and its end(): more than a short run takes to read in C); the pure
# source keeps the expressions above (C speed there). Both give the same ends (tests/peg/test_peg_json.py).
_COMPILED = _compiled.COMPILED
_FIRST_CHARS = {
    "value": None,
    "object": "{",
    "array": "[",
    "string": '"',
    "number": "-0123456789",
    "bool": "tf",
    "null": "n",
}
_EXPECTED = {
    "value": "JSON value",
    "object": '"{"',
    "array": '"["',
    "string": "JSON string",
    "number": "JSON number",
    "bool": "true or false",
    "null": '"null"',
}

# Scanner modes. Whitespace-skipping modes skip [ \t\n\r]* first.
_VALUE, _AFTER, _ARR_FIRST, _OBJ_FIRST, _KEY_WS, _COLON, _VALUE_WS, _STR, _KEY, _RESTART = range(10)
# For peg._growth: the mode of a scan inside a string, what the inside of a string may hold (whole escapes), a
# dangling escape at the end.
STRING_MODE, STRING_BODY, ESCAPE_PREFIX = _STR, _STR_BODY, _ESCAPE_PREFIX

# The open containers, innermost first, as a persistent linked list of "a" (array) / "o" (object) cells: pushing,
# popping and keeping it in a resume state are O(1), so a stream fed one character at a time inside 100,000
# nested arrays does constant work per character (a string or list would be copied on every feed).
Containers = tuple[str, "Containers"] | None

# (mode, position, open containers, inside-a-key flag)
JsonResume = tuple[int, int, Containers, bool]


def scan_json(
    kind: str, text: str, pos: int, resume: JsonResume | None, partial: bool
) -> tuple[int, int, JsonResume | None, str]:
    """Scan one JSON item of ``kind`` at ``pos`` (or continue from ``resume``).

    Returns ``(status, end, resume_state, expected)``: ``resume_state`` is not None exactly when the scan
    looked at the end of the input (then it is where to continue with more text); ``expected`` describes what
    was wanted at ``end`` when the status is FAIL. Cost: linear in the text scanned, regex-speed for strings.
    """
    n = len(text)
    if resume is not None and resume[0] == _STR:
        # The hot path of streaming: still inside a long string. Continue the scan; if the string is still
        # open at the end, the resume state keeps its container stack as is (no list/join round trip).
        q = string_body_end(text, resume[1], n) if _COMPILED else _STR_BODY.match(text, resume[1]).end()  # type: ignore[union-attr]
        if q >= n:
            return (MORE if partial else FAIL), n, (_STR, q, resume[2], resume[3]), "closing quote"
    if kind == "string_content":
        return _scan_string_content(text, n, resume[1] if resume else pos, partial)
    if resume is not None and resume[0] == _RESTART:
        pos, resume = resume[1], None
    if resume is None:
        first = _FIRST_CHARS[kind]
        if first is not None:
            if pos >= n:
                return (MORE if partial else FAIL), n, (_RESTART, pos, None, False), _EXPECTED[kind]
            if text[pos] not in first:
                return FAIL, pos, None, _EXPECTED[kind]
        mode, p, in_key = _VALUE, pos, False
        stack: Containers = None
    else:
        mode, p, stack, in_key = resume

    while True:
        if mode == _STR:  # first: long strings are where streaming spends its time
            q = string_body_end(text, p, n) if _COMPILED else _STR_BODY.match(text, p).end()  # type: ignore[union-attr]
            if q >= n:
                return _eof(partial, n, (_STR, q, stack, in_key), "closing quote")
            c = text[q]
            if c == '"':
                mode, p = (_COLON if in_key else _AFTER), q + 1
            elif c == "\\" and _ESCAPE_PREFIX.match(text, q):
                # A dangling escape at the end: withhold it (end before the backslash) and resume there.
                status = MORE if partial else FAIL
                return status, q, (_STR, q, stack, in_key), "escape sequence"
            else:
                return FAIL, q, None, "escape sequence" if c == "\\" else "string character"
        elif mode in (_VALUE, _VALUE_WS):
            if mode == _VALUE_WS and p < n and text[p] in _WS_CHARS:
                p = whitespace_end(text, p, n) if _COMPILED else _WS.match(text, p).end()  # type: ignore[union-attr]
            if p >= n:
                # Resume in the same mode: a value that may not start with whitespace (at the top level) must
                # not skip whitespace fed later, or a stream would accept what a one-shot parse refuses.
                return _eof(partial, n, (mode, p, stack, False), "JSON value")
            c = text[p]
            if c == "{":
                stack = ("o", stack)
                mode, p = _OBJ_FIRST, p + 1
            elif c == "[":
                stack = ("a", stack)
                mode, p = _ARR_FIRST, p + 1
            elif c == '"':
                mode, p, in_key = _STR, p + 1, False
            elif c == "-" or "0" <= c <= "9":
                if _COMPILED:
                    prefix_end, number_end = number_prefix_end(text, p, n), number_end_at(text, p, n)
                else:
                    prefix_end = _NUMBER_PREFIX.match(text, p).end()  # type: ignore[union-attr]
                    m = _NUMBER.match(text, p)
                    number_end = -1 if m is None else m.end()
                if prefix_end >= n and partial:
                    # The number touches the end: it may still grow ("3" -> "3.14"). Only its longest complete
                    # prefix is shown ("-", "1.", "2e" are withheld: they may still fail).
                    shown = number_end if number_end >= 0 else p
                    return MORE, shown, (_VALUE, p, stack, False), "JSON number"
                if number_end < 0:
                    return FAIL, p, None, "JSON number"
                mode, p = _AFTER, number_end
                if prefix_end >= n and stack is None:
                    return SUCCESS, p, (_VALUE, p, None, False), ""
            elif c in "tfn":  # the first characters of _WORDS
                word = _WORDS[text[p : p + 1]]
                if text.startswith(word, p):
                    mode, p = _AFTER, p + len(word)
                elif n - p < len(word) and word.startswith(text[p:]):
                    # A literal cut by the end (``nu``): withhold it, like a dangling escape, so a stream never
                    # shows a value text that a failed literal would later take back ("nope").
                    return (MORE if partial else FAIL), p, (_VALUE, p, stack, False), f'"{word}"'
                else:
                    return FAIL, p, None, f'"{word}"'
            else:
                return FAIL, p, None, "JSON value"
        elif mode == _AFTER:
            if stack is None:
                return SUCCESS, p, None, ""
            if p < n and text[p] in _WS_CHARS:
                p = whitespace_end(text, p, n) if _COMPILED else _WS.match(text, p).end()  # type: ignore[union-attr]
            closer = "]" if stack[0] == "a" else "}"
            if p >= n:
                return _eof(partial, n, (_AFTER, p, stack, False), f'"," or "{closer}"')
            c = text[p]
            if c == ",":
                mode, p = (_VALUE_WS if stack[0] == "a" else _KEY_WS), p + 1
            elif c == closer:
                stack = stack[1]
                p += 1
            else:
                return FAIL, p, None, f'"," or "{closer}"'
        elif mode in (_ARR_FIRST, _OBJ_FIRST):
            if p < n and text[p] in _WS_CHARS:
                p = whitespace_end(text, p, n) if _COMPILED else _WS.match(text, p).end()  # type: ignore[union-attr]
            closer = "]" if mode == _ARR_FIRST else "}"
            if p >= n:
                return _eof(partial, n, (mode, p, stack, False), f'"{closer}" or JSON value')
            if text[p] == closer:
                assert stack is not None  # the container opened just before this mode was entered
                stack = stack[1]
                mode, p = _AFTER, p + 1
            else:
                mode = _VALUE if mode == _ARR_FIRST else _KEY
        elif mode in (_KEY, _KEY_WS):
            if p < n and text[p] in _WS_CHARS:
                p = whitespace_end(text, p, n) if _COMPILED else _WS.match(text, p).end()  # type: ignore[union-attr]
            if p >= n:
                return _eof(partial, n, (_KEY_WS, p, stack, False), "JSON string")
            if text[p] != '"':
                return FAIL, p, None, "JSON string"
            mode, p, in_key = _STR, p + 1, True
        elif mode == _COLON:
            if p < n and text[p] in _WS_CHARS:
                p = whitespace_end(text, p, n) if _COMPILED else _WS.match(text, p).end()  # type: ignore[union-attr]
            if p >= n:
                return _eof(partial, n, (_COLON, p, stack, False), '":"')
            if text[p] != ":":
                return FAIL, p, None, '":"'
            mode, p = _VALUE_WS, p + 1


def scan_brackets(resume: JsonResume, run: str) -> JsonResume | None:
    """The resume state after scanning ``run`` — only ``[`` or only ``]`` — from ``resume``, a scan stopped at
    the very end of the text (its position is that end), when the value is still open after it: exactly what
    :func:`scan_json` returns for the longer text (a stream of deeply nested arrays feeds mostly such runs).
    None when :func:`scan_json` must decide (other modes or characters, a closer that ends the value or does
    not match). Cost O(len(run)), no regular expression."""
    mode, p, stack, _ = resume
    if run[0] == "[":
        if mode not in (_VALUE, _VALUE_WS, _ARR_FIRST) or run.count("[") != len(run):
            return None
        for _ in run:
            stack = ("a", stack)
        return (_ARR_FIRST, p + len(run), stack, False)
    if mode not in (_AFTER, _ARR_FIRST) or run.count("]") != len(run):
        return None
    for _ in run:
        if stack is None or stack[0] != "a":
            return None
        stack = stack[1]
    if stack is None:
        return None  # the value ends: the scan succeeds
    return (_AFTER, p + len(run), stack, False)


def _eof(partial: bool, n: int, resume: JsonResume, expected: str) -> tuple[int, int, JsonResume, str]:
    return (MORE if partial else FAIL), n, resume, expected


def _scan_string_content(text: str, n: int, p: int, partial: bool) -> tuple[int, int, JsonResume | None, str]:
    q = string_body_end(text, p, n) if _COMPILED else _STR_BODY.match(text, p).end()  # type: ignore[union-attr]
    if q >= n:
        return (MORE if partial else FAIL), n, (_STR, q, None, False), "closing quote"
    c = text[q]
    if c == '"':
        return SUCCESS, q, None, ""
    if c == "\\" and _ESCAPE_PREFIX.match(text, q):
        return (MORE if partial else FAIL), q, (_STR, q, None, False), "escape sequence"
    return FAIL, q, None, "escape sequence" if c == "\\" else "string character"


# The character loops the compiled scanner runs instead of the regular expressions (each ends where the expression's
# match at ``p`` ends; ``n`` is ``len(text)``). Cost O(characters read), C speed compiled.


def whitespace_end(text: str, p: int, n: int) -> int:
    """Where ``_WS`` matched at ``p`` ends: JSON whitespace (space, tab, newline, carriage return)."""
    while p < n:
        c = text[p]
        if c != " " and c != "\t" and c != "\n" and c != "\r":
            break
        p += 1
    return p


def string_body_end(text: str, p: int, n: int) -> int:
    """Where ``STRING_BODY`` matched at ``p`` ends: characters other than a quote, a backslash, a control character
    or a lone surrogate, and whole escapes (a backslash and one of ``"\\/bfnrt``, or ``u`` and four hex digits);
    it stops before anything else, a cut escape included."""
    while p < n:
        c = text[p]
        if c == '"' or c < " " or "\ud800" <= c <= "\udfff":
            break
        if c == "\\":
            if p + 1 >= n:
                break
            c = text[p + 1]
            if c in '"\\/bfnrt':
                p += 2
                continue
            if c != "u" or p + 6 > n or not _hex4(text, p + 2):
                break
            p += 6
            continue
        p += 1
    return p


def _hex4(text: str, p: int) -> bool:
    """Whether the four characters at ``p`` (all there) are hex digits."""
    for i in range(p, p + 4):
        c = text[i]
        if not (("0" <= c <= "9") or ("a" <= c <= "f") or ("A" <= c <= "F")):
            return False
    return True


def _digits_end(text: str, p: int, n: int) -> int:
    while p < n and "0" <= text[p] <= "9":
        p += 1
    return p


def number_prefix_end(text: str, p: int, n: int) -> int:
    """Where ``_NUMBER_PREFIX`` matched at ``p`` ends: the longest text that may still grow into a number (each
    part optional: a sign, ``0`` or digits not starting with 0, a dot and digits, an exponent mark, its sign and
    digits)."""
    if p < n and text[p] == "-":
        p += 1
    if p < n:
        c = text[p]
        if c == "0":
            p += 1
        elif "1" <= c <= "9":
            p = _digits_end(text, p + 1, n)
    if p < n and text[p] == ".":
        p = _digits_end(text, p + 1, n)
    if p < n and (text[p] == "e" or text[p] == "E"):
        p += 1
        if p < n and (text[p] == "+" or text[p] == "-"):
            p += 1
        p = _digits_end(text, p, n)
    return p


def number_end_at(text: str, p: int, n: int) -> int:
    """Where ``_NUMBER`` matched at ``p`` ends (a JSON number: a sign, ``0`` or digits not starting with 0, then a
    fraction and an exponent if they are whole), or -1 if no number starts there."""
    if p < n and text[p] == "-":
        p += 1
    if p >= n:
        return -1
    c = text[p]
    if c == "0":
        p += 1
    elif "1" <= c <= "9":
        p = _digits_end(text, p + 1, n)
    else:
        return -1
    if p + 1 < n and text[p] == "." and "0" <= text[p + 1] <= "9":
        p = _digits_end(text, p + 2, n)
    if p + 1 < n and (text[p] == "e" or text[p] == "E"):
        q = p + 1
        if text[q] == "+" or text[q] == "-":
            q += 1
        if q < n and "0" <= text[q] <= "9":
            p = _digits_end(text, q + 1, n)
    return p
