"""Chat builders on top of :mod:`peg`: semantic tags and helpers for the recurring tool-call shapes.

The names live in three modules, all re-exported here: ``_tags.py`` (tags, gaps, JSON whitespace), ``_tools.py``
(the request's tools) and ``_calls.py`` (JSON, XML-style and pythonic call parsers).

Tags tell the mapper (``mapper.py``) what a region of the output means. Pieces that must never stream half
(tool names, ids, markers, argument names) are wrapped in :func:`peg.atomic`, so no AST node exists for them
until they are complete; values (reasoning, content, arguments) are not, so they stream.

Helpers:

* :func:`json_tool_call` — ``{"name": N, "arguments": {...}}`` objects with configurable keys, key orders and an
  optional id member (Hermes, Mistral Nemo, ...).
* :func:`xml_tool_call` — ``<function=N><parameter=K>V</parameter>...</function>`` with string values raw and
  other values JSON (Qwen3-Coder and its relatives), arguments in any order, each at most once, required ones
  enforced (exact for up to :data:`MAX_PERMUTED_ARGS` properties).
* :func:`permuted_args` — named arguments in any order, each at most once, required ones enforced (shared by
  the XML-style and pythonic calls).
* :func:`python_literal_json` — the JSON text of a Python literal (pythonic calls, see ``formats/_pythonic.py``).
* :func:`tool_choice_of` — the ordered choice of one parser per tool, longest name first, so that a name which
  is a prefix of another (``special_function`` / ``special_function_with_opt``) is never reported early.

All helpers cost O(size of the tool schemas) to build; building is done once per request.
"""

from __future__ import annotations

from ._calls import (
    MAX_PERMUTED_ARGS,
    ArgsOrderWarning,
    XmlMarkers,
    json_tool_call,
    permuted_args,
    python_literal_json,
    tool_choice_of,
    xml_tool_call,
)
from ._tags import (
    BLOCK,
    CONTENT,
    CONTENT_JSON_STRING,
    GAP_MAX,
    JSON_WS_MAX,
    REASONING,
    TOOL,
    TOOL_ARG,
    TOOL_ARG_CLOSE,
    TOOL_ARG_CONVERTED_VALUE,
    TOOL_ARG_JSON_VALUE,
    TOOL_ARG_NAME,
    TOOL_ARG_OPEN,
    TOOL_ARG_PYTHON_VALUE,
    TOOL_ARG_STRING_VALUE,
    TOOL_ARGS,
    TOOL_CLOSE,
    TOOL_ID,
    TOOL_NAME,
    TOOL_OPEN,
    VALUE_CONVERTERS,
    block,
    content,
    content_json_string,
    gap,
    implied_arg_name,
    implied_tool_name,
    json_seq,
    json_ws,
    reasoning,
    tool,
    tool_arg,
    tool_arg_close,
    tool_arg_converted_value,
    tool_arg_json_value,
    tool_arg_name,
    tool_arg_open,
    tool_arg_python_value,
    tool_arg_string_value,
    tool_args,
    tool_close,
    tool_id,
    tool_name,
    tool_open,
)
from ._tools import ToolsError, ToolSpec, parse_tools, schema_is_string

__all__ = [
    "BLOCK",
    "CONTENT",
    "CONTENT_JSON_STRING",
    "GAP_MAX",
    "JSON_WS_MAX",
    "MAX_PERMUTED_ARGS",
    "REASONING",
    "TOOL",
    "TOOL_ARG",
    "TOOL_ARGS",
    "TOOL_ARG_CLOSE",
    "TOOL_ARG_CONVERTED_VALUE",
    "TOOL_ARG_JSON_VALUE",
    "TOOL_ARG_NAME",
    "TOOL_ARG_OPEN",
    "TOOL_ARG_PYTHON_VALUE",
    "TOOL_ARG_STRING_VALUE",
    "TOOL_CLOSE",
    "TOOL_ID",
    "TOOL_NAME",
    "TOOL_OPEN",
    "VALUE_CONVERTERS",
    "ArgsOrderWarning",
    "ToolSpec",
    "ToolsError",
    "XmlMarkers",
    "block",
    "content",
    "content_json_string",
    "gap",
    "implied_arg_name",
    "implied_tool_name",
    "json_seq",
    "json_tool_call",
    "json_ws",
    "parse_tools",
    "permuted_args",
    "python_literal_json",
    "reasoning",
    "schema_is_string",
    "tool",
    "tool_arg",
    "tool_arg_close",
    "tool_arg_converted_value",
    "tool_arg_json_value",
    "tool_arg_name",
    "tool_arg_open",
    "tool_arg_python_value",
    "tool_arg_string_value",
    "tool_args",
    "tool_choice_of",
    "tool_close",
    "tool_id",
    "tool_name",
    "tool_open",
    "xml_tool_call",
]
