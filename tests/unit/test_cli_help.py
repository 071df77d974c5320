"""Every command's --help, walked from the argparse parser itself (a new command is
covered without naming it here): a description, an examples section whose `xtalk ...`
lines are commands the parser takes, and a description for every argument and option;
the results directory is $XTALK_OUT when --out is not given."""
from __future__ import annotations

import argparse
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from xtalk.cli.main import command_names
from xtalk.cli.main import _command_of, build_parser

REDIRECTIONS = ("<", ">", "|")


def commands(parser: argparse.ArgumentParser, words: tuple[str, ...] = ("xtalk",)) -> Iterator[tuple[str, ...]]:
    yield words
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from commands(sub, words + (name,))


def parser_of(words: tuple[str, ...], parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or build_parser()
    for word in words[1:]:
        parser = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[word]
    return parser


def examples(parser: argparse.ArgumentParser) -> list[str]:
    text = parser.format_help()
    assert "\nexamples:\n" in text, text
    section = text.split("\nexamples:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in section.splitlines()]


COMMANDS = list(commands(build_parser()))


@pytest.mark.parametrize("name", command_names())
def test_a_command_parsed_alone_has_the_help_it_has_among_all(name):
    alone, among = build_parser(name), build_parser()
    assert _command_of(["--debug", name, "x"]) == name and _command_of(["nosuch", name]) is None
    for words in commands(alone):
        if len(words) > 1:
            assert parser_of(words, alone).format_help() == parser_of(words, among).format_help()
    assert len(list(commands(alone))) == len([w for w in COMMANDS if w[1:2] == (name,)]) + 1


def test_the_walk_finds_every_command_and_its_actions():
    assert len(COMMANDS) > 20 and ("xtalk", "spec", "check") in COMMANDS and ("xtalk", "worker") in COMMANDS


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(w) for w in COMMANDS])
def test_every_help_has_examples_the_parser_takes(words):
    parser = parser_of(words)
    shown = examples(parser)
    assert 1 <= len(shown) <= 3, shown
    for example in shown:
        assert example.startswith(" ".join(words) + " ") or example == " ".join(words), (words, example)
        argv = argv_of(example)
        build_parser().parse_args(argv)  # SystemExit (a usage error) fails the test
        build_parser(_command_of(argv)).parse_args(argv)  # as `xtalk` parses it: with its command's module only


@pytest.mark.parametrize("words", COMMANDS, ids=[" ".join(w) for w in COMMANDS])
def test_every_argument_and_option_is_described(words):
    parser = parser_of(words)
    assert parser.description, words
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            undescribed = [a.dest for a in action._choices_actions if not (a.help or "").strip()]
            assert not undescribed, (words, undescribed)
        else:
            assert (action.help or "").strip() and action.help != argparse.SUPPRESS, (words, action.option_strings
                                                                                      or action.dest)


def argv_of(example: str) -> list[str]:
    """The arguments of an example (after `xtalk`, before a shell redirection)."""
    argv = shlex.split(example)[1:]
    return argv[:next((i for i, w in enumerate(argv) if w in REDIRECTIONS), len(argv))]


@pytest.mark.parametrize("words", [w for w in COMMANDS if any(a.dest == "out" for a in parser_of(w)._actions)],
                         ids=lambda w: " ".join(w))
def test_out_defaults_to_xtalk_out(words, monkeypatch, tmp_path):
    argv = next(a for a in map(argv_of, examples(parser_of(words))) if "--out" not in a)
    monkeypatch.delenv("XTALK_OUT", raising=False)
    assert build_parser().parse_args(argv).out == Path("results")
    monkeypatch.setenv("XTALK_OUT", str(tmp_path))
    assert build_parser().parse_args(argv).out == tmp_path
    assert f"now{tmp_path}" in "".join(parser_of(words).format_help().split())  # wrapped anywhere
    assert build_parser().parse_args([*argv, "--out", "elsewhere"]).out == Path("elsewhere")
