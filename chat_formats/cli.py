"""The ``pegchat`` command line.

Every subcommand prints JSON (or GBNF text), exits 0 on success and 2 with a one-line message on stderr for bad
input (an unknown format, a bad tools file, an invalid grammar with line:column, an unsupported schema with its
JSON pointer, a malformed input line)::

    pegchat formats                                        # one format name per line
    pegchat parse   --format NAME [--tools FILE] [--partial] [--thinking-forced-open]
                    [--reasoning-format auto|none] < output.txt     # -> ChatMessage JSON
    pegchat stream  --format NAME [--tools FILE] [...] < chunks.jsonl   # -> one chat.completion.chunk per line
    pegchat grammar --format NAME --tools FILE [--tool-choice auto|required|none] [--no-parallel]
    pegchat gbnf check|validate|from-schema ...
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from gbnf_backend import Grammar, GrammarError, SchemaError

__all__ = ["main"]


class UsageError(Exception):
    """Bad input to a subcommand: printed as one line on stderr, exit status 2."""


def _read(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from error
    except UnicodeDecodeError as error:
        raise UsageError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from error


def _load_grammar(path: str, root: str) -> Grammar:
    try:
        return Grammar.from_gbnf(_read(path), root)
    except GrammarError as error:
        raise UsageError(f"{path}:{error.one_line}") from error


def _json_lines(stream: TextIO, what: str) -> list[str]:
    """Return the JSON strings of ``stream``, one per non-blank line."""
    items: list[str] = []
    for number, line in enumerate(stream, start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise UsageError(f"stdin line {number}: not JSON ({error.msg} at column {error.colno})") from error
        if not isinstance(value, str):
            raise UsageError(f"stdin line {number}: expected a JSON string ({what}), got {type(value).__name__}")
        items.append(value)
    return items


def _gbnf_check(args: argparse.Namespace, out: TextIO) -> None:
    grammar = _load_grammar(args.grammar, args.root)
    for text in _json_lines(sys.stdin, "the text to check"):
        out.write(json.dumps({"accepted": grammar.matches(text)}) + "\n")


def _gbnf_validate(args: argparse.Namespace, out: TextIO) -> None:
    grammar = _load_grammar(args.grammar, args.root)
    named = [name for sid, name in enumerate(grammar.names) if sid not in grammar.generated]
    out.write(json.dumps({"valid": True, "root": grammar.root, "rules": named, "expanded_rules": len(grammar.rules)}))
    out.write("\n")


def _gbnf_from_schema(args: argparse.Namespace, out: TextIO) -> None:
    from gbnf_backend.json_schema import json_schema_to_gbnf

    text = _read(args.schema)
    try:
        schema = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{args.schema}:{error.lineno}:{error.colno}: not JSON ({error.msg})") from error
    try:
        out.write(json_schema_to_gbnf(schema, strict=not args.lenient))
    except SchemaError as error:
        raise UsageError(f"{args.schema}: {error.one_line}") from error


def _load_tools(path: str | None) -> list[Any]:
    """The tools list of a ``--tools`` file: a JSON list of OpenAI tool objects (or ``{"tools": [...]}``)."""
    if path is None:
        return []
    text = _read(path)
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{path}:{error.lineno}:{error.colno}: not JSON ({error.msg})") from error
    if isinstance(value, dict) and "tools" in value:
        value = value["tools"]
    if not isinstance(value, list):
        raise UsageError(f"{path}: expected a JSON list of tools")
    return value


def _chat_format(args: argparse.Namespace) -> Any:
    from chat_formats import OptionError, ToolsError, UnknownFormatError, get_format

    try:
        return get_format(
            args.format,
            tools=_load_tools(args.tools),
            tool_choice=getattr(args, "tool_choice", "auto"),
            parallel_tool_calls=not getattr(args, "no_parallel", False),
            reasoning_format=getattr(args, "reasoning_format", "auto"),
            thinking_forced_open=getattr(args, "thinking_forced_open", False),
        )
    except (UnknownFormatError, ToolsError, OptionError) as error:
        raise UsageError(str(error)) from error


def _formats(args: argparse.Namespace, out: TextIO) -> None:
    from chat_formats import available_formats

    del args
    out.write("".join(f"{name}\n" for name in available_formats()))


def _parse(args: argparse.Namespace, out: TextIO) -> None:
    fmt = _chat_format(args)
    message = fmt.parse(sys.stdin.read(), partial=args.partial)
    out.write(message.model_dump_json() + "\n")


def _stream(args: argparse.Namespace, out: TextIO) -> None:
    fmt = _chat_format(args)
    pieces = _json_lines(sys.stdin, "one text delta")
    stream = fmt.stream(reasoning_field=args.reasoning_field)
    created = int(time.time())
    chunk_id = f"chatcmpl-{uuid.uuid4().hex[:24]}"
    for piece in pieces:
        for chunk in stream.chunks(stream.feed(piece), chunk_id=chunk_id, created=created):
            out.write(json.dumps(chunk, ensure_ascii=False) + "\n")
    for chunk in stream.chunks(stream.finish(length=args.length), chunk_id=chunk_id, created=created):
        out.write(json.dumps(chunk, ensure_ascii=False) + "\n")


def _grammar(args: argparse.Namespace, out: TextIO) -> None:
    fmt = _chat_format(args)
    try:
        grammar = fmt.grammar()
    except SchemaError as error:
        raise UsageError(f"{args.tools}: {error.one_line}") from error
    except GrammarError as error:
        raise UsageError(f"grammar: {error.one_line}") from error
    out.write(json.dumps(grammar.to_json(), ensure_ascii=False) + "\n")


def _add_format_options(p: argparse.ArgumentParser, *, parsing: bool) -> None:
    p.add_argument("--format", required=True, help="a format name (see `pegchat formats`)")
    p.add_argument("--tools", help="JSON file: a list of OpenAI tool objects")
    if parsing:
        p.add_argument("--thinking-forced-open", action="store_true", help="the prompt already opened the reasoning")
        p.add_argument("--reasoning-format", choices=["auto", "none"], default="auto")


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="pegchat", description=__doc__.splitlines()[0] if __doc__ else None)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    gbnf = commands.add_parser("gbnf", help="check, validate and generate GBNF grammars")
    gbnf_commands = gbnf.add_subparsers(dest="gbnf_command", required=True, metavar="SUBCOMMAND")
    check = gbnf_commands.add_parser("check", help='each stdin line a JSON string -> {"accepted": bool}')
    check.add_argument("grammar", metavar="GRAMMAR_FILE")
    check.add_argument("--root", default="root", help="the start rule (default: root)")
    check.set_defaults(run=_gbnf_check)
    validate = gbnf_commands.add_parser("validate", help="parse and validate a grammar")
    validate.add_argument("grammar", metavar="GRAMMAR_FILE")
    validate.add_argument("--root", default="root", help="the start rule (default: root)")
    validate.set_defaults(run=_gbnf_validate)
    from_schema = gbnf_commands.add_parser("from-schema", help="JSON Schema file -> GBNF text")
    from_schema.add_argument("schema", metavar="SCHEMA_FILE")
    from_schema.add_argument(
        "--lenient", action="store_true", help="weaken what cannot be expressed exactly (warns) instead of failing"
    )
    from_schema.set_defaults(run=_gbnf_from_schema)

    commands.add_parser("formats", help="list the format names").set_defaults(run=_formats)
    parse = commands.add_parser("parse", help="model output on stdin -> ChatMessage JSON")
    _add_format_options(parse, parsing=True)
    parse.add_argument("--partial", action="store_true", help="the output may continue (a stream's view)")
    parse.set_defaults(run=_parse)
    stream = commands.add_parser("stream", help="JSON-string deltas on stdin -> chat.completion.chunk lines")
    _add_format_options(stream, parsing=True)
    stream.add_argument("--reasoning-field", default="reasoning_content", help="delta field for reasoning")
    stream.add_argument("--length", action="store_true", help="finish with finish_reason 'length'")
    stream.set_defaults(run=_stream)
    grammar = commands.add_parser("grammar", help="the format's grammar for the tools, as JSON")
    _add_format_options(grammar, parsing=True)
    grammar.add_argument("--tool-choice", default="auto", help="auto, required, none or a tool name")
    grammar.add_argument("--no-parallel", action="store_true", help="at most one tool call")
    grammar.set_defaults(run=_grammar)
    return parser


def _fail(message: str) -> NoReturn:
    sys.stderr.write(f"pegchat: {message.splitlines()[0] if message else 'error'}\n")
    raise SystemExit(2)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status (0, or 2 for bad input)."""
    args = build_parser().parse_args(argv)
    run: Callable[[argparse.Namespace, TextIO], None] = args.run
    try:
        run(args, sys.stdout)
    except UsageError as error:
        _fail(str(error))
    except BrokenPipeError:  # pragma: no cover - e.g. `pegchat ... | head`
        return 0
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
