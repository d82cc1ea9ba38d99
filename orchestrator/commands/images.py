"""`python -m orchestrator images build|list`: build the base and stack images (idempotent)."""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime
from pathlib import Path

import anyio

from sandbox import AgentLayer, ImageBuilder, SandboxError, stacks

from ..config import ConfigError, load_config

HELP = "build the sandbox images (base + one per stack; skipped when unchanged) or list them"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="images_cmd", metavar="ACTION", required=True)
    b = sub.add_parser("build", help="build base and stack images that are missing or stale")
    b.add_argument("--stack", action="append", help="only this stack (repeatable)")
    b.add_argument(
        "--agents",
        metavar="CONFIG",
        help="also the agent layers of CONFIG's scaffold solvers, on each stack image",
    )
    b.add_argument(
        "--agent",
        action="append",
        metavar="NAME",
        help="with --agents: only this scaffold solver's layer (repeatable)",
    )
    sub.add_parser("list", help="list pwb images")


def _progress(msg: str) -> None:
    print(f"[images] {msg}", flush=True)


def _agent_layers(config: str | None, only: list[str] | None) -> dict[str, AgentLayer]:
    if not config:
        if only:
            raise ConfigError("--agent needs --agents CONFIG")
        return {}
    cfg = load_config(Path(config))
    layers = {
        s.name: AgentLayer(pip=s.scaffold.pip, npm=s.scaffold.npm, apt=s.scaffold.apt)
        for s in cfg.solvers
        if s.scaffold is not None
    }
    unknown = sorted(set(only or ()) - set(layers))
    if unknown:
        raise ConfigError(f"--agent {unknown}: no such scaffold solver in {config}")
    return {n: layer for n, layer in layers.items() if not only or n in only}


async def _build(only: list[str] | None, agents: dict[str, AgentLayer]) -> int:
    builder = ImageBuilder()
    known = stacks()
    wanted = only or known
    unknown = sorted(set(wanted) - set(known))
    if unknown:
        print(f"unknown stack(s) {unknown}; known: {known}", file=sys.stderr)
        return 2
    for stack in wanted:
        t0 = time.monotonic()
        tag = await builder.ensure_stack(stack, _progress)
        _progress(f"{stack}: {tag} ({time.monotonic() - t0:.1f}s)")
        for name, layer in agents.items():
            t0 = time.monotonic()
            agent = await builder.ensure_agent_image(tag, layer, _progress)
            _progress(f"{stack} + {name}: {agent} ({time.monotonic() - t0:.1f}s)")
    return 0


async def _list() -> int:
    for img in await ImageBuilder().list_images():
        when = datetime.fromtimestamp(img.created).strftime("%Y-%m-%d %H:%M")
        print(f"{img.tag:40} {img.id[7:19]} {img.size_mb:8.1f} MB  {when}")
    return 0


def run(args: argparse.Namespace) -> int:
    try:
        if args.images_cmd == "build":
            agents = _agent_layers(args.agents, args.agent)
            return anyio.run(_build, args.stack, agents, backend="asyncio")
        return anyio.run(_list, backend="asyncio")
    except (SandboxError, ConfigError) as exc:
        print(f"images: {exc}", file=sys.stderr)
        return 1
