"""`python -m orchestrator [command]`: each command lives in `orchestrator/commands/<name>.py`.

A command module defines `HELP: str`, `add_arguments(parser)` and `run(args) -> int`.
With no command, `run` (the sweep) is assumed, so `python -m orchestrator --concurrency 64`
works as documented.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType

COMMANDS = (
    "run",
    "tasks",
    "images",
    "gc",
    "verify",
    "capture",
    "cell",
    "admit",
    "report",
    "regrade",
    "export",
    "new",
    "suggest",
    "lint",
)


def _load(name: str) -> ModuleType:
    return importlib.import_module(f"orchestrator.commands.{name}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with `only`, import just that command (the others pull heavy libraries)."""
    parser = argparse.ArgumentParser(prog="python -m orchestrator")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        try:
            mod = _load(name)
        except ModuleNotFoundError as exc:
            if exc.name != f"orchestrator.commands.{name}":
                raise
            continue  # command not built yet
        p = sub.add_parser(name, help=mod.HELP, description=mod.HELP)
        mod.add_arguments(p)
        p.set_defaults(_module=mod)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if not args_list or (args_list[0].startswith("-") and args_list[0] not in ("-h", "--help")):
        args_list.insert(0, "run")
    parser = build_parser(args_list[0] if args_list[0] in COMMANDS else None)
    args = parser.parse_args(args_list)
    if not hasattr(args, "_module"):
        parser.print_help()
        return 2
    result: int = args._module.run(args)
    return result
