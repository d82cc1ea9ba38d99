"""`python -m orchestrator gc`: remove containers and networks left by crashed sweeps,
and (bare or `--expired`) workspaces no run links to any more."""

from __future__ import annotations

import argparse
import sys

import anyio

from sandbox import Removed, SandboxError, collect_garbage

from ..sweep import EngineUnavailable, gc_cluster
from ..workspace import discard_orphans

HELP = (
    "remove pwb-labelled containers and networks of sweeps that are not alive "
    "(all, one --sweep, or --expired only; --force also live ones), and workspaces "
    "whose run is gone"
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sweep", help="only this sweep's resources")
    p.add_argument("--expired", action="store_true", help="only those past their TTL")
    p.add_argument(
        "--force",
        action="store_true",
        help="also remove resources of sweeps that are still running (their run lock is held)",
    )
    p.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="ray: run gc on every worker node of a Ray cluster (each its own Docker daemon)",
    )
    p.add_argument("--ray-address", default="", help="the Ray cluster (--engine ray)")


def run(args: argparse.Namespace) -> int:
    if args.engine == "ray":
        return _run_cluster(args)
    if args.sweep is None:  # a workspace's run is gone: its disk comes back (no daemon needed)
        for home in discard_orphans():
            print(f"removed workspace {home}")
    try:
        removed = anyio.run(_gc, args.sweep, args.expired, args.force, backend="asyncio")
    except SandboxError as exc:
        print(f"gc: {exc}", file=sys.stderr)
        return 1
    for r in removed:
        print(f"removed {r.kind:9} {r.name}  sweep={r.sweep} cell={r.cell}")
    print(f"{len(removed)} removed")
    return 0


async def _gc(sweep: str | None, expired: bool, force: bool) -> list[Removed]:
    return await collect_garbage(sweep=sweep, expired_only=expired, force=force)


def _run_cluster(args: argparse.Namespace) -> int:
    try:
        nodes = gc_cluster(args.ray_address, args.sweep, args.expired, args.force)
    except EngineUnavailable as exc:
        print(f"gc: {exc}", file=sys.stderr)
        return 1
    failed = 0
    for node in nodes:
        if node.error:
            failed += 1
            print(f"gc: node {node.node[:12]}: {node.error}", file=sys.stderr)
            continue
        for r in node.removed:
            print(
                f"node {node.node[:12]}: removed {r.kind:9} {r.name}  sweep={r.sweep} cell={r.cell}"
            )
        print(f"node {node.node[:12]}: {len(node.removed)} removed")
    return 1 if failed else 0
