"""Probe conversations: what a chat template writes for an assistant turn with content, with reasoning, and
with one and two tool calls.

Each probe renders ``[user, assistant]`` and keeps the part after the generation prompt (the rendering of
``[user]`` with ``add_generation_prompt=True``), i.e. what the model itself would have written — the text the
format must parse. Marker strings are chosen to occur nowhere in a template (``PROBE_CONTENT`` …), so the
differ can find them. Tool-call arguments are given as a mapping first and, if the template fails with that
or does not show them, as a JSON string (templates disagree on which they expect).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from ._render import TemplateError, render

__all__ = [
    "PROBE_ARGS",
    "PROBE_CONTENT",
    "PROBE_REASONING",
    "PROBE_TOOL",
    "PROBE_TOOLS",
    "Renderings",
    "probe_text",
    "render_probes",
]

PROBE_TOOL = "get_weather"
PROBE_CONTENT = "Checking the weather now."
PROBE_REASONING = "The user wants the weather in Paris."
#: The arguments of the first and the second probe call: a string and an integer parameter.
PROBE_ARGS: tuple[dict[str, Any], dict[str, Any]] = ({"city": "Paris", "days": 3}, {"city": "Lyon", "days": 5})
PROBE_TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": PROBE_TOOL,
            "description": "Get the weather forecast for a city.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
                "required": ["city"],
            },
        },
    }
]
_USER = {"role": "user", "content": "What is the weather in Paris?"}


@dataclass
class Renderings:
    """The assistant part of each probe (None when the template failed on it; ``errors`` says why) and the
    generation prompt the parts follow."""

    prompt: str = ""
    prompt_thinking: str | None = None
    prompt_no_thinking: str | None = None
    content: str | None = None
    reasoning: str | None = None
    one_call: str | None = None
    two_calls: str | None = None
    errors: list[str] = field(default_factory=list)


def _calls(n: int, as_text: bool) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        args: Any = json.dumps(PROBE_ARGS[i]) if as_text else dict(PROBE_ARGS[i])
        out.append({"id": f"call_{i}", "type": "function", "function": {"name": PROBE_TOOL, "arguments": args}})
    return out


def _assistant_part(source: str, prompt: str, message: dict[str, Any], **extra: Any) -> str:
    full = render(source, [_USER, message], tools=PROBE_TOOLS, **extra)
    if full.startswith(prompt):
        return full[len(prompt) :]
    # The generation prompt is not a prefix (a template that renders the last turn differently): keep what
    # follows the longest common prefix.
    k = 0
    while k < min(len(full), len(prompt)) and full[k] == prompt[k]:
        k += 1
    while k > 0 and full.rfind("<", 0, k) > full.rfind(">", 0, k):  # never split a marker
        k = full.rfind("<", 0, k)
    return full[k:]


def render_probes(source: str) -> Renderings:
    """The four probe renderings of ``source``. Raises :class:`TemplateError` only when the template does not
    compile or cannot render even the generation prompt. Cost: up to thirteen renderings."""
    out = Renderings(prompt=render(source, [_USER], tools=PROBE_TOOLS, add_generation_prompt=True))
    for switch in (True, False):  # the two generation prompts tell the reasoning markers of templates that switch
        try:
            text = render(
                source, [_USER], tools=PROBE_TOOLS, add_generation_prompt=True, enable_thinking=switch, thinking=switch
            )
        except TemplateError:
            continue
        setattr(out, "prompt_thinking" if switch else "prompt_no_thinking", text)
    reasoning = {"reasoning_content": PROBE_REASONING, "thinking": PROBE_REASONING, "reasoning": PROBE_REASONING}
    plain = {"role": "assistant", "content": PROBE_CONTENT}
    blocks = [{"type": "thinking", "thinking": PROBE_REASONING}, {"type": "text", "text": PROBE_CONTENT}]
    on: dict[str, Any] = {"enable_thinking": True, "thinking": True}
    attempts: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {
        "content": [(plain, {})],
        # Reasoning as fields, as fields with thinking switched on, as content blocks (Mistral).
        "reasoning": [
            ({**plain, **reasoning}, {}),
            ({**plain, **reasoning}, on),
            ({"role": "assistant", "content": blocks}, {}),
        ],
        "one_call": [({**plain, "tool_calls": _calls(1, t)}, {}) for t in (False, True)],
        "two_calls": [({**plain, "tool_calls": _calls(2, t)}, {}) for t in (False, True)],
    }
    for name, tries in attempts.items():
        for message, extra in tries:
            try:
                prompt = out.prompt if not extra else (out.prompt_thinking or out.prompt)
                part = _assistant_part(source, prompt, message, **extra)
            except TemplateError as exc:
                out.errors.append(f"{name}: {exc}")
                continue
            if "tool_calls" in message and "Paris" not in part:
                out.errors.append(f"{name}: the rendering shows no call arguments")
                continue
            if name == "reasoning" and (PROBE_REASONING not in part or "'type'" in part or '"type"' in part):
                continue  # not shown, or a content-block list printed as text
            setattr(out, name, part)
            break
    return out


def probe_text(source: str) -> str:
    """All probe renderings of ``source`` joined (empty if the template cannot render at all), for marker
    detection. Cost: see :func:`render_probes`."""
    try:
        r = render_probes(source)
    except TemplateError:
        return ""
    parts = [r.prompt, r.content, r.reasoning, r.one_call, r.two_calls]
    return "\n".join(p for p in parts if p)
