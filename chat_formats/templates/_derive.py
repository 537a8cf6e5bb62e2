"""The differential autoparser: a format derived from a chat template by diffing what it renders.

The template is rendered for an assistant turn with content, with reasoning, with one and with two tool calls
(:func:`._probe.render_probes`). Then:

* reasoning: the marker right before the probe reasoning and the one right after it (``<think>`` /
  ``</think>``); the block is "opened by the prompt" when the generation prompt ends with the opener;
* calls: the text the one-call rendering adds to the content-only one, and the text the two-call rendering adds
  between the calls, give the section markers (written once), the per-call markers (written per call) and the
  separator between calls; inside a call the probe's name and arguments are located to find the argument
  style:

  - ``json-object``: the call is one JSON object holding the name and the arguments (Hermes' ``{"name": …,
    "arguments": {…}}``), keys read from the rendering;
  - ``json-args``: the name, a separator, then the arguments as one JSON object (DeepSeek V3.1, Mistral's
    ``[ARGS]``);
  - ``tagged``: one tag pair per argument, key inside the opener (``<parameter=K>``, ``<parameter name="K">``)
    or in its own tags (``<arg_key>K</arg_key><arg_value>V</arg_value>``); string values raw, others JSON.

The parts become a :class:`~chat_formats.formats._layout.Layout`, built with the same builders as the
hand-written formats. Whatever cannot be derived is listed in the :class:`AutoFormatReport` (and the layout
leaves that part out) — nothing is guessed: a template without tool-call rendering gives a format without calls,
and a call shape the differ does not understand (names as JSON keys, pythonic calls, ids inside the name) is a
failure naming what was seen.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Literal

from peg import Parser, chars, literal, peek, rule, schema
from peg import json as json_value

from ..builder import (
    ToolSpec,
    XmlMarkers,
    gap,
    json_tool_call,
    tool,
    tool_args,
    tool_close,
    tool_name,
    tool_open,
    xml_tool_call,
)
from ..formats._layout import CallMaker, CallSyntax, JsonArray, Layout, ReasoningStyle, Section, Wrapped
from ._probe import PROBE_ARGS, PROBE_CONTENT, PROBE_REASONING, PROBE_TOOL, Renderings, render_probes

__all__ = ["ArgStyle", "AutoFormatReport", "CallParts", "derive_format"]

ArgStyle = Literal["json-object", "json-args", "tagged"]

# A marker-like token: <…>, <|…|>, [UPPER], ◁…▷ (the reasoning opener / closer the differ looks for).
_TAG = re.compile(r"(<[^<>\n]{1,60}>|\[/?[A-Z_]{2,30}\]|◁[^▷\n]{1,20}▷)")


@dataclass
class CallParts:
    """What the differ found about tool calls (empty strings where a part is absent)."""

    style: ArgStyle
    section_open: str = ""
    section_close: str = ""
    separator: str = ""
    call_open: str = ""
    call_close: str = ""
    name_suffix: str = ""
    # json-object
    keys: tuple[tuple[str, str], ...] = ()
    # tagged
    param_open: str = ""
    key_suffix: str = ""
    value_close: str = ""


@dataclass
class AutoFormatReport:
    """What :func:`derive_format` derived (``derived``: part → value) and what it could not (``failures``), with
    the layout built from the derived parts (None if not even content could be placed)."""

    derived: dict[str, str] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    layout: Layout | None = None
    reasoning: ReasoningStyle | None = None
    calls: CallParts | None = None
    prompt_opens_reasoning: bool = False

    def summary(self) -> str:
        """One line per derived part and failure."""
        lines = [f"derived {k}: {v!r}" for k, v in self.derived.items()]
        lines += [f"not derived: {f}" for f in self.failures]
        return "\n".join(lines)


def _lcp(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n


def _lcs(a: str, b: str) -> int:
    n = 0
    while n < min(len(a), len(b)) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def tag_safe_prefix(text: str, n: int) -> int:
    """The largest ``k <= n`` such that ``text[:k]`` does not end inside a ``<…>`` marker (a common prefix
    must not split ``<tool_call>`` after its ``<``)."""
    while n > 0 and text.rfind("<", 0, n) > text.rfind(">", 0, n):
        n = text.rfind("<", 0, n)
    return n


def tag_safe_suffix(text: str, n: int) -> int:
    """The largest ``k <= n`` such that ``text[len(text) - k:]`` does not start inside a ``<…>`` marker."""
    while n > 0:
        tail = text[len(text) - n :]
        close, open_ = tail.find(">"), tail.find("<")
        if close < 0 or (0 <= open_ < close):
            return n
        n -= close + 1
    return n


def _inserted(base: str, longer: str) -> tuple[int, str]:
    """Where ``longer`` differs from ``base`` and the text it adds there (common prefix and suffix removed,
    never splitting a marker)."""
    p = tag_safe_prefix(longer, _lcp(base, longer))
    s = tag_safe_suffix(longer, min(_lcs(base, longer), len(base) - p, len(longer) - p))
    return p, longer[p : len(longer) - s]


def _reasoning_from_prompts(r: Renderings, report: AutoFormatReport) -> ReasoningStyle | None:
    """The markers a template's generation prompt writes with thinking on and off: ``X<think>`` / ``X<think></think>``
    (the prompt opens the block) or ``X`` / ``X<think></think>`` (an empty block closes thinking off)."""
    on, off = r.prompt_thinking, r.prompt_no_thinking
    if on is None or off is None or on == off:
        return None
    p = tag_safe_prefix(off, _lcp(on, off))
    extra_off, extra_on = off[p:].strip(), on[p:].strip()
    tags_off, tags_on = _TAG.findall(extra_off), _TAG.findall(extra_on)
    if len(tags_off) == 2 and not extra_on and "".join(tags_off) == re.sub(r"\s+", "", extra_off):
        style = ReasoningStyle(tags_off[0], tags_off[1])
    elif len(tags_on) == 1 and extra_on == tags_on[0] and extra_off.startswith(tags_on[0]):
        close = _TAG.match(extra_off[len(tags_on[0]) :].strip())
        if close is None:
            return None
        style = ReasoningStyle(tags_on[0], close.group(0))
        report.prompt_opens_reasoning = True
        report.derived["prompt opens reasoning"] = "yes, with thinking on (use thinking_forced_open)"
    else:
        return None
    report.derived["reasoning"] = f"{style.open} … {style.close} (from the generation prompts)"
    return style


def _reasoning(r: Renderings, report: AutoFormatReport) -> ReasoningStyle | None:
    if r.reasoning is None or PROBE_REASONING not in r.reasoning:
        from_prompts = _reasoning_from_prompts(r, report)
        if from_prompts is None:
            report.failures.append("reasoning: the template does not render the assistant's reasoning field")
        return from_prompts
    at = r.reasoning.index(PROBE_REASONING)
    before, after = r.reasoning[:at].rstrip(), r.reasoning[at + len(PROBE_REASONING) :].lstrip()
    opens = _TAG.findall(before)
    close = _TAG.match(after)
    prompt = (r.prompt_thinking or r.prompt).rstrip()
    in_prompt = _TAG.findall(prompt)
    unopened = not opens or not before.endswith(opens[-1]) or opens[-1].startswith("</")
    prompt_opened = bool(in_prompt) and prompt.endswith(in_prompt[-1])
    if unopened and prompt_opened and close is not None and in_prompt[-1].strip("<>/") == close.group(0).strip("<>/"):
        opens = [in_prompt[-1]]  # the generation prompt opened the block (``<think>``), the turn closes it
        before = opens[0]
    if not opens or not before.endswith(opens[-1]) or opens[-1].startswith("</") or close is None:
        report.failures.append(f"reasoning: no marker around it (rendered {r.reasoning[:120]!r})")
        return None
    style = ReasoningStyle(opens[-1], close.group(0))
    report.derived["reasoning"] = f"{style.open} … {style.close}"
    report.prompt_opens_reasoning = prompt.endswith(style.open)
    if report.prompt_opens_reasoning:
        report.derived["prompt opens reasoning"] = "yes (use thinking_forced_open)"
    return style


def _arg_json_texts(args: dict[str, object]) -> list[str]:
    return [
        json.dumps(args, ensure_ascii=False),
        json.dumps(args, ensure_ascii=False, separators=(",", ":")),
        json.dumps(args, ensure_ascii=False, indent=2),
        json.dumps(args, ensure_ascii=False, indent=4),
    ]


@dataclass
class _Span:
    """One call inside the inserted text: where it starts and ends, and its inner parts."""

    start: int
    end: int
    style: ArgStyle
    name_suffix: str = ""
    keys: tuple[tuple[str, str], ...] = ()
    param_open: str = ""
    key_suffix: str = ""
    value_close: str = ""


def _json_object_at(text: str, name_at: int, args: dict[str, object]) -> _Span | None:
    decoder = json.JSONDecoder()
    for start in range(name_at, -1, -1):
        if text[start] != "{":
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) and PROBE_TOOL in value.values():
            roles = []
            for k, v in value.items():
                roles.append((k, "name" if v == PROBE_TOOL else "arguments" if v == args else "other"))
            return _Span(start, end, "json-object", keys=tuple(roles))
    return None


def _locate(text: str, offset: int, index: int) -> _Span | str:
    """The ``index``-th probe call in ``text`` at or after ``offset``, or why it cannot be read."""
    name_at = text.find(PROBE_TOOL, offset)
    if name_at < 0:
        return f"call {index + 1}: the tool name is not rendered"
    args = PROBE_ARGS[index]
    obj = _json_object_at(text, name_at, dict(args))
    if obj is not None:
        return obj
    name_end = name_at + len(PROBE_TOOL)
    for js in _arg_json_texts(dict(args)):
        at = text.find(js, name_end)
        if at >= 0:
            return _Span(name_at, at + len(js), "json-args", name_suffix=text[name_end:at])
    # Tagged arguments: city (a string) then days (an integer).
    city, days = str(args["city"]), str(args["days"])
    v1 = text.find(city, name_end)
    k1 = text.rfind("city", name_end, v1) if v1 >= 0 else -1
    v2 = text.find(days, v1 + len(city)) if v1 >= 0 else -1
    k2 = text.rfind("days", v1 + len(city), v2) if v2 >= 0 else -1
    if min(v1, k1, v2, k2) < 0:
        return f"call {index + 1}: arguments are neither JSON nor key/value tags ({text[name_at : name_at + 120]!r})"
    key_suffix = text[k1 + 4 : v1]
    if text[k2 + 4 : v2] != key_suffix:
        return f"call {index + 1}: argument markers differ per argument ({key_suffix!r} / {text[k2 + 4 : v2]!r})"
    after_name, between = text[name_end:k1], text[v1 + len(city) : k2]
    p = tag_safe_suffix(between, _lcs(after_name, between))
    param_open, value_close = between[len(between) - p :], between[: len(between) - p]
    if not param_open or not value_close.strip():
        return f"call {index + 1}: no argument opener/closer between the values ({between!r})"
    end = v2 + len(days)
    if not text.startswith(value_close, end):
        return f"call {index + 1}: the last argument is not closed like the first ({text[end : end + 40]!r})"
    return _Span(
        name_at,
        end + len(value_close),
        "tagged",
        name_suffix=after_name[: len(after_name) - p],
        param_open=param_open,
        key_suffix=key_suffix,
        value_close=value_close,
    )


def _calls(r: Renderings, report: AutoFormatReport) -> CallParts | None:
    if r.one_call is None or r.two_calls is None or r.content is None:
        why = "; ".join(r.errors) or "no rendering"
        report.failures.append(f"tool calls: the template does not render them ({why})")
        return None
    base = r.content
    if PROBE_CONTENT not in r.one_call:
        report.derived["content with calls"] = "dropped by the template (calls compared with an empty message)"
        base = r.content.replace(PROBE_CONTENT, "")
    at1, one = _inserted(base, r.one_call)
    at2, two = _inserted(base, r.two_calls)
    content_end = base.find(PROBE_CONTENT) + len(PROBE_CONTENT) if PROBE_CONTENT in base else 0
    if at1 < content_end or at2 < content_end:
        report.failures.append("tool calls: rendered before the content (only content-then-calls is supported)")
        return None
    s1 = _locate(one, 0, 0)
    s2a = _locate(two, 0, 0)
    s2b = _locate(two, s2a.end, 1) if isinstance(s2a, _Span) else s2a
    for s in (s1, s2a, s2b):
        if isinstance(s, str):
            report.failures.append(f"tool calls: {s}")
            return None
    assert isinstance(s1, _Span) and isinstance(s2a, _Span) and isinstance(s2b, _Span)
    if s1.style != s2b.style or s1.name_suffix != s2b.name_suffix:
        report.failures.append("tool calls: the two calls are written differently")
        return None
    inter = two[s2a.end : s2b.start]
    before, after = one[: s1.start], one[s1.end :]
    q = tag_safe_prefix(after, _lcp(after, inter))
    p = tag_safe_suffix(before, _lcs(before, inter[q:]))
    call_open, call_close = before[len(before) - p :], after[:q]
    parts = CallParts(
        style=s1.style,
        section_open=before[: len(before) - p],
        section_close=after[q:],
        separator=inter[q : len(inter) - p],
        call_open=call_open,
        call_close=call_close,
        name_suffix=s1.name_suffix,
        keys=s1.keys,
        param_open=s1.param_open,
        key_suffix=s1.key_suffix,
        value_close=s1.value_close,
    )
    for key, value in (
        ("section", f"{parts.section_open.strip()!r} … {parts.section_close.strip()!r}"),
        ("call", f"{parts.call_open.strip()!r} NAME{parts.name_suffix!r} … {parts.call_close.strip()!r}"),
        ("separator", repr(parts.separator)),
        ("arguments", parts.style),
    ):
        report.derived[key] = value
    if parts.style == "json-object":
        report.derived["keys"] = ", ".join(f"{k}={role}" for k, role in parts.keys)
    if parts.style == "tagged":
        report.derived["argument"] = f"{parts.param_open!r} KEY {parts.key_suffix!r} VALUE {parts.value_close!r}"
    return parts


def _pieces(text: str) -> list[str]:
    """``text`` split at line breaks, each piece stripped, empty pieces dropped (whitespace between markers is
    free in the built format)."""
    return [p.strip() for p in text.splitlines() if p.strip()]


def _spaced(text: str) -> Parser | None:
    pieces = _pieces(text)
    if not pieces:
        return None
    out: Parser = literal(pieces[0])
    for piece in pieces[1:]:
        out = out + gap() + piece
    return out


def _json_object_call(parts: CallParts, report: AutoFormatReport) -> CallMaker | None:
    roles = [role for _, role in parts.keys]
    names = {role: k for k, role in parts.keys}
    if "other" in roles or "arguments" not in names:
        report.failures.append(f"tool calls: JSON call members not understood ({parts.keys})")
        return None
    name_key, args_key = names["name"], names["arguments"]

    def make(spec: ToolSpec) -> Parser:
        return json_tool_call(spec, name_key=name_key, args_key=args_key, orders=(tuple(roles),))

    return make


def _json_args_call(head: str, parts: CallParts, close: str) -> CallMaker:
    suffix = parts.name_suffix.strip()

    def make(spec: ToolSpec) -> Parser:
        opener = tool_open(literal(head)) if head else None
        name = tool_name(spec.name, suffix) if suffix else tool_name(spec.name)
        args = tool_args(schema(json_value(), f"{spec.rule}-args", dict(spec.parameters)))
        body = (name if opener is None else opener + name) + gap() + args
        if close:
            body = body + gap() + tool_close(literal(close))
        return rule(spec.rule, tool(body))

    return make


def _tagged_call(head: str, parts: CallParts, close: str) -> CallMaker:
    name_suffix: str | Parser = parts.name_suffix.strip()
    if not name_suffix:  # a bare name ends where whitespace or a marker starts (GLM)
        name_suffix = peek(chars("[<\\t\\n\\r ]", 1, 1), implied=True)
    key_suffix: str | Parser = _spaced(parts.key_suffix) or ""
    newline = parts.key_suffix.endswith("\n")
    value_close = parts.value_close
    ends = (value_close, value_close.lstrip("\n")) if value_close.startswith("\n") else (value_close,)
    markers = XmlMarkers(
        function_open=head,
        name_suffix=name_suffix,
        function_close=close,
        param_open=parts.param_open.strip(),
        key_suffix=key_suffix,
        value_ends=tuple(dict.fromkeys(e for e in ends if e)),
        value_newline=newline,
    )

    def make(spec: ToolSpec) -> Parser:
        return xml_tool_call(spec, markers)

    return make


def _framed(make: CallMaker, opens: list[str], closes: list[str]) -> CallMaker:
    """``make``'s call between one per-call opener and closer (either may be absent)."""

    def framed(spec: ToolSpec) -> Parser:
        call = make(spec)
        if opens:
            call = literal(opens[0]) + gap() + call
        if closes:
            call = call + gap() + closes[0]
        return call

    return framed


def _call_syntax(parts: CallParts, report: AutoFormatReport) -> CallSyntax | None:
    opens, closes = _pieces(parts.call_open), _pieces(parts.call_close)
    sep = parts.separator.strip()
    if parts.style == "json-object":
        make = _json_object_call(parts, report)
        if make is None:
            return None
        sec_open, sec_close = parts.section_open.strip(), parts.section_close.strip()
        if sep == "," and sec_open.endswith("[") and sec_close.startswith("]") and not opens and not closes:
            return JsonArray(sec_open[:-1], sec_close[1:] or None, make)
        if sep or len(opens) > 1 or len(closes) > 1:
            report.failures.append(f"tool calls: JSON calls framed in a way not understood ({parts.call_open!r})")
            return None
        if sec_open and sec_close:
            return Section(sec_open, sec_close, _framed(make, opens, closes))
        if not opens:
            report.failures.append("tool calls: bare JSON calls without a marker (nothing to trigger on)")
            return None
        return Wrapped(opens[0], closes[0] if closes else None, make)
    if sep:
        report.failures.append(f"tool calls: a separator between calls is not supported ({parts.separator!r})")
        return None
    if not opens and not parts.section_open.strip():
        report.failures.append("tool calls: no marker opens a call")
        return None
    # The per-call opener's last line is the call's own head (``<function=``), earlier lines a wrapper.
    head, wrapper_open = (opens[-1], opens[:-1]) if opens else ("", [])
    close, wrapper_close = (closes[0], closes[1:]) if closes else ("", [])
    if len(wrapper_open) > 1 or len(wrapper_close) > 1:
        report.failures.append(f"tool calls: more than one wrapper marker ({parts.call_open!r})")
        return None
    call = _json_args_call(head, parts, close) if parts.style == "json-args" else _tagged_call(head, parts, close)
    sec_open, sec_close = parts.section_open.strip(), parts.section_close.strip()
    starts = (head,) if head else ()
    if sec_open:
        if wrapper_open:
            report.failures.append("tool calls: both a section and a per-call wrapper (not supported)")
            return None
        if not sec_close:
            report.failures.append(f"tool calls: a section opener without a closer ({parts.section_open!r})")
            return None
        return Section(sec_open, sec_close, call)
    if wrapper_open:
        return Wrapped(wrapper_open[0], wrapper_close[0] if wrapper_close else None, call)
    return Wrapped("", None, call, starts=starts)


def derive_format(chat_template: str) -> AutoFormatReport:
    """Derive a format from ``chat_template`` by rendering probe conversations and diffing them.

    Returns the :class:`AutoFormatReport`; its ``layout`` is the format (a builder, as in the registry) built
    from the derived parts, leaving out what could not be derived (listed in ``failures``). Raises
    :class:`~chat_formats.templates.TemplateError` when the template does not compile or cannot render a
    generation prompt. Cost: up to nine renderings and linear scans of them.
    """
    r = render_probes(chat_template)
    report = AutoFormatReport()
    if r.content is None or PROBE_CONTENT not in r.content:
        report.failures.append("content: the template does not render an assistant message")
    report.reasoning = _reasoning(r, report)
    report.calls = _calls(r, report)
    syntax = _call_syntax(report.calls, report) if report.calls is not None else None
    report.layout = Layout(reasoning=report.reasoning, calls=syntax)
    return report
