"""The Ray driver's own rules, without a cluster (#41, item 4): cells wait a bounded
time for a worker node when none is alive, then end resumable and stop the sweep; keys
come from the driver; a node with other harness code is refused; joining a remote
cluster without token authentication is warned about."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import anyio
import msgspec
import pytest

from orchestrator.config import BenchConfig, SolverConfig
from orchestrator.llm import Keys, ProviderConfig, driver_keys
from orchestrator.sweep import CellFailure, SweepIds
from orchestrator.sweep._ray import RayEngine, _Node, auth_warning
from orchestrator.sweep._ray_host import VersionMismatch, check_version

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def _engine(tmp: Path, bound: float) -> RayEngine:
    cfg = BenchConfig(solvers=(SolverConfig(name="r", kind="reference"),))
    cfg = msgspec.structs.replace(
        cfg, sweep=msgspec.structs.replace(cfg.sweep, ray_capacity_wait_s=bound)
    )
    return RayEngine(
        cfg=cfg,
        run_dir=tmp,
        ids=SweepIds(sweep="s"),
        tasks=[],
        ledger_actor=None,
        version="v",
        packages={},
    )


async def test_with_no_live_node_a_cell_waits_the_bound_then_every_cell_ends_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _engine(tmp_path, bound=0.6)
    engine.nodes["gone"] = _Node(node_id="gone", actor=None, slots=2, alive=False)

    async def no_node() -> list[_Node]:
        return []

    monkeypatch.setattr(engine, "refresh", no_node)
    t0 = time.monotonic()
    with pytest.raises(CellFailure) as first:
        await engine._acquire()
    waited = time.monotonic() - t0
    assert 0.6 <= waited < 5.0  # the bound, not the first look
    assert not first.value.retryable and first.value.outcome.status == "infra_error"
    assert "ray_capacity_wait_s" in engine.capacity_lost and "--resume" in engine.capacity_lost
    t1 = time.monotonic()
    with pytest.raises(CellFailure):
        await engine._acquire()  # the next cell does not wait the bound again
    assert time.monotonic() - t1 < 0.5


async def test_a_node_that_joins_within_the_bound_takes_the_cell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = _engine(tmp_path, bound=30.0)
    t0 = time.monotonic()

    async def joins_later() -> list[_Node]:
        if time.monotonic() - t0 < 0.5:
            return []
        node = _Node(node_id="back", actor=None, slots=1)
        engine.nodes.setdefault("back", node)
        return [node]

    monkeypatch.setattr(engine, "refresh", joins_later)
    with anyio.fail_after(10):
        node = await engine._acquire()
    assert node.node_id == "back" and node.busy == 1 and not engine.capacity_lost


def test_keys_passed_by_the_driver_come_first_and_are_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PWB_K_NODE", "node-own")
    monkeypatch.setenv("PWB_K_DRIVER", "driver-env")
    monkeypatch.delenv("PWB_K_NONE", raising=False)
    configs = [
        ProviderConfig(name=n, kind="openai", model="m", base_url="http://p/v1", api_key_env=e)
        for n, e in (("a", "PWB_K_DRIVER"), ("b", "PWB_K_NONE"), ("c", ""))
    ]
    assert driver_keys(configs) == {"PWB_K_DRIVER": "driver-env"}  # only what is set
    keys = Keys({"PWB_K_NODE": "from-driver"})
    assert keys.get("PWB_K_NODE") == "from-driver"  # the driver's, not the node's
    assert keys.get("PWB_K_DRIVER") == "driver-env"  # the node's own as the fallback
    assert keys.get("PWB_K_NONE") == "" and keys.get("") == ""
    assert "from-driver" not in repr(keys) and "PWB_K_NODE" in repr(keys)
    remote = keys.missing("p", "PWB_K_NONE")
    assert "$PWB_K_NONE is not set on the sweep's driver" in remote and "worker host" in remote
    local = Keys().missing("p", "PWB_K_NONE")
    assert "$PWB_K_NONE is not set in the environment of the process" in local


def test_a_node_with_other_harness_code_is_refused() -> None:
    check_version("abc", "abc", "n" * 20)
    check_version("abc", "", "n" * 20)  # a driver that sent none (an older one): no check
    with pytest.raises(VersionMismatch, match="runs harness code abc, the driver def"):
        check_version("abc", "def", "n" * 20)


@pytest.mark.parametrize(
    ("address", "env", "warned"),
    [
        ("10.0.0.5:6379", {}, True),
        ("ray://head.example:10001", {}, True),
        ("10.0.0.5:6379", {"RAY_AUTH_MODE": "token"}, False),
        ("", {"RAY_ADDRESS": "10.0.0.5:6379"}, True),
        ("", {}, False),  # "auto": a cluster started on this host
        ("127.0.0.1:6379", {}, False),
    ],
)
def test_joining_a_remote_cluster_without_token_auth_is_warned(
    address: str, env: dict[str, Any], warned: bool
) -> None:
    assert bool(auth_warning(address, env)) is warned
