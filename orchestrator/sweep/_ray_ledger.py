"""One ledger for the whole cluster: a `LedgerActor` (`cluster_ledger`) on the head
node is charged by every node as spend happens; a node's cell ledger (`ClusterLedger`)
reads its totals before each LLM call, so a cap reached stops new calls everywhere. After
each attempt the driver takes the cell's spend from it into the cell's own ledger
(`settle`), so the row and the sweep ledger are what they are on one host; at the end it
writes the actor's history of charges into the run directory (`write_history`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import msgspec
import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from ..budget import Ledger
from ..cluster_ledger import Charge, LedgerActor
from ..faults import describe

log = logging.getLogger("orchestrator.sweep.ray")


@dataclass
class ClusterLedger(Ledger):
    """A node's view of the sweep ledger: charges go to the `LedgerActor` as they happen,
    and `acheck` reads the cluster-wide totals first (one round trip per LLM call).

    Nothing here blocks the cell's event loop (hundreds of cells share a node's): a
    charge is sent, not waited on (the actor takes one process's calls in the order they
    were sent), and `acheck` awaits the charges sent so far and then the totals. There is
    no synchronous `check`."""

    cell: str = ""
    node: str = ""
    actor: Any = None
    sent: list[Any] = field(default_factory=list)  # charges not yet acknowledged (ObjectRefs)

    def _sync(self, totals: tuple[int, float]) -> None:
        self.spent_tokens, self.spent_usd = totals
        if self.exhausted:
            self.stopped = True

    def charge(self, tokens: int, usd: float, *, estimated: bool = False) -> None:
        self.sent.append(self.actor.charge.remote(self.cell, self.node, tokens, usd, estimated))

    async def flush(self) -> None:
        """Wait until the actor has taken every charge sent so far (a cell's concurrent
        calls, through its gateway, may flush at once: each keeps its refs until done)."""
        sent = list(self.sent)
        for ref in sent:
            self._sync(await ref)
        done = {id(ref) for ref in sent}
        self.sent = [ref for ref in self.sent if id(ref) not in done]

    def check(self) -> None:
        raise TypeError("a ClusterLedger is checked with `await acheck()`, never blocking")

    async def acheck(self) -> None:
        await self.flush()
        self._sync(await self.actor.totals.remote())
        self._check_caps()


def start_ledger_actor(ledger: Ledger) -> Any:
    """The sweep's `LedgerActor`, with `ledger`'s caps. It lives on the head node (the
    cluster's own fate), not on a worker that may be lost; with several nodes on one IP
    the driver's node may be a worker's."""
    heads = [
        n["NodeID"]
        for n in ray.nodes()  # type: ignore[no-untyped-call]
        if n.get("Alive") and "node:__internal_head__" in n["Resources"]
    ]
    here = heads[0] if heads else ray.get_runtime_context().get_node_id()
    return (
        ray.remote(LedgerActor)
        .options(num_cpus=0, scheduling_strategy=NodeAffinitySchedulingStrategy(here, soft=False))
        .remote(ledger.max_usd, ledger.max_tokens)
    )


async def settle(actor: Any, key: str, ledger: Ledger) -> None:
    """Move what cell `key` was charged on its node into the driver's cell ledger."""
    with anyio.CancelScope(shield=True), anyio.move_on_after(10.0):
        tokens, usd, estimated = await actor.take.remote(key)
        if tokens or usd:
            ledger.charge(tokens, usd)
        for _ in range(estimated):
            ledger.charge(0, 0.0, estimated=True)


async def write_history(actor: Any, run_dir: Path) -> None:
    """Every charge of this sweep, in the order the cluster ledger took them, with the
    node and cell it came from: `ledger.jsonl` in the run directory (appended on
    `--resume`)."""
    try:
        charges: list[Charge] = await actor.history.remote()
    except Exception as exc:
        log.warning("engine 'ray': the ledger's history is lost: %s", describe(exc))
        return
    if charges:
        with (run_dir / "ledger.jsonl").open("ab") as f:
            f.write(b"".join(msgspec.json.encode(c) + b"\n" for c in charges))
