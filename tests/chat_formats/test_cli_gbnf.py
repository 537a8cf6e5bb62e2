"""`pegchat gbnf check|validate` through the installed console script and in-process."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from chat_formats.cli import main
from tests.chat_formats.support import run_cli as run


def test_check_prints_one_verdict_per_line(tmp_path: Path) -> None:
    grammar = tmp_path / "yn.gbnf"
    grammar.write_text('root ::= "yes" | "no" | "caf\\u00E9"\n')
    result = run(["gbnf", "check", str(grammar)], '"yes"\n"maybe"\n\n"caf\u00e9"\n')
    assert result.returncode == 0, result.stderr
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"accepted": True},
        {"accepted": False},
        {"accepted": True},
    ]


def test_bad_grammar_exits_2_with_line_and_column(tmp_path: Path) -> None:
    grammar = tmp_path / "bad.gbnf"
    grammar.write_text('root ::= item\nitem ::= "a" missing\n')
    for sub in ("check", "validate"):
        result = run(["gbnf", sub, str(grammar)], '"a"\n')
        assert result.returncode == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1
        assert f"{grammar}:2:14: undefined rule 'missing'" in lines[0]


def test_malformed_input_line_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grammar = tmp_path / "g.gbnf"
    grammar.write_text('root ::= "a"\n')
    monkey_stdin = __import__("io").StringIO('"a"\n{"not": "a string"}\n')
    old = sys.stdin
    sys.stdin = monkey_stdin
    try:
        with pytest.raises(SystemExit) as info:
            main(["gbnf", "check", str(grammar)])
    finally:
        sys.stdin = old
    assert info.value.code == 2
    assert "stdin line 2: expected a JSON string" in capsys.readouterr().err


def test_validate_lists_rules(tmp_path: Path) -> None:
    grammar = tmp_path / "g.gbnf"
    grammar.write_text('root ::= ("a" item)+\nitem ::= [0-9]{1,3}\n')
    result = run(["gbnf", "validate", str(grammar)])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["valid"] is True and report["rules"] == ["root", "item"]
    assert report["expanded_rules"] > 2


def test_missing_file_and_unknown_command_exit_2(tmp_path: Path) -> None:
    result = run(["gbnf", "check", str(tmp_path / "nope.gbnf")])
    assert result.returncode == 2 and "nope.gbnf" in result.stderr
    assert run(["no-such-command"]).returncode == 2
