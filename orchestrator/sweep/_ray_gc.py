"""`gc` on every worker node of a Ray cluster: one task pinned to each node, each
collecting its own Docker daemon's garbage (`NodeGc`).
"""

from __future__ import annotations

import logging
from functools import partial

import anyio
import msgspec
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from sandbox import Removed, SandboxError, collect_garbage

from ..faults import describe
from ._core import EngineUnavailable
from ._ray_cell import CELLS


class NodeGc(msgspec.Struct, frozen=True, kw_only=True):
    """`gc` on one worker node: what it removed there, or why it could not."""

    node: str
    removed: list[Removed] = []
    error: str = ""


def _gc_here(sweep: str | None, expired: bool, force: bool) -> NodeGc:
    node = ray.get_runtime_context().get_node_id()
    try:
        removed = anyio.run(
            partial(collect_garbage, sweep=sweep, expired_only=expired, force=force),
            backend="asyncio",
        )
    except SandboxError as exc:
        return NodeGc(node=node, error=str(exc))
    return NodeGc(node=node, removed=removed)


def gc_cluster(address: str, sweep: str | None, expired: bool, force: bool) -> list[NodeGc]:
    """`gc` on every live node of the cluster that declares `pwb_cells` (each its own
    Docker daemon), one task pinned to each, in parallel."""
    owned = not ray.is_initialized()
    if owned:
        try:
            ray.init(
                address=address or "auto",
                include_dashboard=False,
                logging_level=logging.WARNING,
                log_to_driver=False,
            )
        except ConnectionError as exc:
            raise EngineUnavailable(f"engine 'ray': cannot reach the cluster: {exc}") from exc
    try:
        nodes = [
            n["NodeID"]
            for n in ray.nodes()  # type: ignore[no-untyped-call]
            if n.get("Alive") and CELLS in n["Resources"]
        ]
        if not nodes:
            raise EngineUnavailable(f"engine 'ray': no node of the cluster declares {CELLS}")
        task = ray.remote(_gc_here)
        refs = [
            task.options(
                num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(nid, soft=False)
            ).remote(sweep, expired, force)
            for nid in nodes
        ]
        out: list[NodeGc] = []
        for nid, ref in zip(nodes, refs, strict=True):
            try:
                out.append(ray.get(ref))
            except Exception as exc:  # the node died, or its worker did
                out.append(NodeGc(node=nid, error=describe(exc)))
        return out
    finally:
        if owned:
            ray.shutdown()
