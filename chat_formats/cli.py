"""The ``pegchat`` command line.

Every subcommand prints JSON (or GBNF text), exits 0 on success and 2 with a one-line message on stderr for bad
input (an invalid grammar with line:column, an unsupported schema with its JSON pointer, a malformed input line).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn, TextIO

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
