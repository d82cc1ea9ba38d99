from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from orchestrator.commands.run import apply_overrides
from orchestrator.config import ConfigError, config_hash, load_config

ROOT = Path(__file__).resolve().parents[2]


def test_shipped_bench_toml_loads() -> None:
    cfg = load_config(ROOT / "bench.toml")
    assert {s.kind for s in cfg.solvers} >= {"reference", "noop", "thrash", "negative", "llm"}
    assert cfg.provider("fake").kind == "fake"


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("concurrency = 8", "concurency = 8", "sweep: object contains unknown field `concurency`"),
        ("concurrency = 8", 'concurrency = "lots"', "sweep.concurrency: expected `int`, got `str`"),
        ('provider = "fake"', 'provider = "nope"', "solvers[4].provider: expected one of ['fake']"),
        ('arms = ["staged", "full-spec"]', 'arms = ["both"]', "sweep.arms[0]: invalid enum value"),
    ],
)
def test_bad_config_names_the_key(tmp_path: Path, old: str, new: str, expected: str) -> None:
    text = (ROOT / "bench.toml").read_text()
    assert old in text
    path = tmp_path / "bench.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}:")
    assert expected.lower() in str(info.value).lower()


def test_cli_flags_override_and_config_hash_tracks_solver_settings() -> None:
    cfg = load_config(ROOT / "bench.toml")
    ns = argparse.Namespace(
        concurrency=64,
        budget_usd=1.5,
        backend="local",
        repeats=None,
        arms=None,
        allow_env_drift=False,
    )
    over = apply_overrides(cfg, ns)
    assert (over.sweep.concurrency, over.sweep.max_usd, over.sweep.backend) == (64, 1.5, "local")
    llm = next(s for s in cfg.solvers if s.kind == "llm")
    ref = next(s for s in cfg.solvers if s.kind == "reference")
    assert config_hash(cfg, llm, "staged") != config_hash(cfg, llm, "full-spec")
    assert config_hash(cfg, llm, "staged") != config_hash(cfg, ref, "staged")
    assert config_hash(cfg, llm, "staged") == config_hash(over, llm, "staged")  # concurrency is not
    drift = apply_overrides(cfg, argparse.Namespace(**{**vars(ns), "allow_env_drift": True}))
    assert drift.sweep.allow_env_drift
    assert config_hash(drift, llm, "staged") != config_hash(cfg, llm, "staged")


async def _which_loop() -> str:
    import asyncio

    return type(asyncio.get_running_loop()).__module__.split(".")[0]


def test_event_loop_is_asyncio_unless_pwb_loop_says_uvloop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from orchestrator.commands._loop import run_async

    monkeypatch.delenv("PWB_LOOP", raising=False)
    assert run_async(_which_loop) == "asyncio"
    monkeypatch.setenv("PWB_LOOP", "uvloop")
    assert run_async(_which_loop) == "uvloop"
    monkeypatch.setenv("PWB_LOOP", "tokio")
    with pytest.raises(SystemExit, match="PWB_LOOP='tokio': expected one of asyncio, uvloop"):
        run_async(_which_loop)


def test_cli_agent_presets_decode() -> None:
    cfg = load_config(ROOT / "bench.toml")
    aider = next(s for s in cfg.solvers if s.name == "aider")
    assert aider.kind == "scaffold" and aider.scaffold is not None
    assert aider.scaffold.pip and "{token}" in aider.scaffold.env.values()
    assert aider.arms == ("full-spec",)
    active = [s for s in cfg.solvers if s.kind == "scaffold"]
    assert {s.name for s in active} == {"aider", "mini-swe-agent", "codex", "opencode"}
    for solver in active:
        assert solver.scaffold is not None and (solver.scaffold.pip or solver.scaffold.npm)
        files = " ".join(solver.scaffold.files.values())
        joined = " ".join([*solver.scaffold.command, *solver.scaffold.env.values(), files])
        assert "{token}" in joined and "{prompt_file}" in joined


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            'state = [".aider*"]',
            'state = ["../outside"]',
            "scaffold.state: expected a path inside the workspace",
        ),
        ('state = [".aider*"]', 'state = ["/etc"]', "scaffold.state: expected a path inside"),
    ],
)
def test_scaffold_state_paths_stay_in_the_workspace(
    tmp_path: Path, old: str, new: str, expected: str
) -> None:
    text = (ROOT / "bench.toml").read_text()
    path = tmp_path / "bench.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError, match=re.escape(expected)):
        load_config(path)


def test_a_scaffold_must_name_a_provider(tmp_path: Path) -> None:
    text = (ROOT / "bench.toml").read_text()
    aider = text.index('name = "aider"')
    path = tmp_path / "bench.toml"
    path.write_text(text[:aider] + text[aider:].replace('provider = "fake"', 'provider = ""', 1))
    with pytest.raises(ConfigError, match=r"solvers\[5\]\.provider: expected one of"):
        load_config(path)
