"""bench.toml: the sweep's configuration, decoded by msgspec (bad keys/values name themselves)."""

from __future__ import annotations

import hashlib
import re
import tomllib
from pathlib import Path
from typing import Literal

import msgspec

from .contract import located_error
from .llm import AgentOptions, ProviderConfig
from .persona import Wording
from .records import Arm
from .scoring import Weights

SolverKind = Literal["reference", "noop", "thrash", "negative", "mixed", "llm", "scaffold"]


class ConfigError(Exception):
    pass


class _Cfg(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    pass


class ScaffoldConfig(_Cfg, frozen=True, kw_only=True):
    """An external CLI agent run inside the sandbox (full-spec arm), through the gateway.

    `command` and the values of `env` are templates: {prompt_file} and {workspace}
    (relative to the workspace), {model} (the provider's model), {home} (a fresh
    directory outside the workspace for the agent's own state), {gateway} (the LLM
    gateway's base URL, no path), {openai_base_url} ({gateway}/v1) and {token} (the
    cell's gateway token: the only "API key" the agent ever sees).
    """

    command: tuple[str, ...]
    env: dict[str, str] = {}
    # Files written into {home} before the run (name -> templated text), e.g. an agent's
    # config or model metadata, so it needs no network for them.
    files: dict[str, str] = {}
    pass_env: tuple[str, ...] = ()  # host variables passed through by name (not provider keys)
    # The agent image layer (Docker), installed at image build time:
    pip: tuple[str, ...] = ()
    npm: tuple[str, ...] = ()
    apt: tuple[str, ...] = ()
    # Workspace paths (globs) the agent keeps its own state in despite {home}: removed
    # before the final checkpoint, so they neither fail `scope` nor count as delivery.
    state: tuple[str, ...] = ()
    wall_time_s: float = 1800.0
    backbone: str = ""  # the model it drives, for the report's grid ("" = the provider's)
    max_usd: float | None = None  # this cell's cap, metered by the gateway
    max_tokens: int | None = None
    stop_grace_s: float = 10.0  # after a budget refusal, the agent has this long to exit


class SolverConfig(_Cfg, frozen=True, kw_only=True):
    name: str
    kind: SolverKind
    negative: str = ""  # kind "negative": which negative of each task ("" = the first)
    provider: str = ""  # kind "llm"/"scaffold": a [[providers]] name
    options: AgentOptions = AgentOptions()
    scaffold: ScaffoldConfig | None = None
    arms: tuple[Arm, ...] = ()  # restrict this solver to these arms ("" = all of the sweep's)
    # The simulated user's wording: the task's persona, or the bare requirement (ablation).
    wording: Wording = "persona"


class SweepConfig(_Cfg, frozen=True, kw_only=True):
    name: str = "default"
    runs_dir: str = "runs"
    tasks_dir: str = "tasks"
    tasks: tuple[str, ...] = ("*",)  # globs of task ids
    arms: tuple[Arm, ...] = ("staged",)
    repeats: int = 1
    concurrency: int = 8
    # Where cells run: this host, or a Ray cluster's worker nodes (`--engine ray`).
    engine: Literal["local", "ray"] = "local"
    ray_address: str = ""  # "" : RAY_ADDRESS or a cluster started on this host
    # With no live worker node (the only one lost), how long cells wait for one to
    # (re)join before they end resumable and the sweep stops (exit 3, --resume).
    ray_capacity_wait_s: float = 300.0
    backend: Literal["auto", "docker", "local"] = "auto"
    # Docker: install host firewall rules per sweep network (needs root); false runs
    # cells whose sandboxes can reach the host, recorded as not isolated.
    docker_firewall: bool = True
    # backend = "auto" with no Docker at all runs cells unisolated only when this is true.
    allow_unisolated: bool = False
    # A cell whose work tree grows past this (checked before each checkpoint) ends there.
    workspace_disk_mb: int = 1024
    cell_timeout_s: float = 1800.0  # the solver's wall time; then the final checkpoint
    final_grace_s: float = 180.0  # a budget-stopped cell's time for its final checkpoint
    infra_retries: int = 2
    max_usd: float | None = None
    max_tokens: int | None = None
    # Concurrent browser states: N fixed, or 0 for as many as the CPU has room for
    # (a core each at first, up to 4 a core: `verifier/_browser/_headroom.py`).
    browser_contexts: int = 0
    sandbox_starts: int = 4  # concurrent container starts/builds
    image_builds: int = 1
    baseline: bool = True
    # Grade visual gates not applicable when the rendering environment differs from a
    # task's evidence, instead of refusing to start (`--allow-env-drift`).
    allow_env_drift: bool = False
    # Run tasks whose current contract has no recorded admission in the tasks directory's
    # ADMISSION.json (`--allow-unadmitted`); the run remembers them and its report says so.
    allow_unadmitted: bool = False
    # "reuse": a checkpoint reuses a state whose served bytes did not change (the same
    # verdicts, `verifier/_reuse/_cache.py`) and replays the others in reset warm contexts
    # (`verifier/_browser/_warm.py`); "states": the same, but a fresh context per replayed state;
    # "full": replay every state, each in a fresh context (audit, `--replay full`).
    replay: Literal["reuse", "states", "full"] = "reuse"
    # Cassettes (README "A local model"): "record" every provider exchange of each cell
    # into `cassette_dir` (default `<run dir>/cassettes`), one JSONL file a cell; "replay"
    # answers every model call from the cassettes in `cassette_dir`, no provider asked.
    cassettes: Literal["off", "record", "replay"] = "off"
    cassette_dir: str = ""


class BenchConfig(_Cfg, frozen=True, kw_only=True):
    sweep: SweepConfig = SweepConfig()
    scoring: Weights = Weights()
    providers: tuple[ProviderConfig, ...] = ()
    solvers: tuple[SolverConfig, ...]

    def provider(self, name: str) -> ProviderConfig:
        for p in self.providers:
            if p.name == name:
                return p
        raise KeyError(name)


def _problems(cfg: BenchConfig) -> list[str]:
    out = []
    providers = {p.name for p in cfg.providers}
    names = [s.name for s in cfg.solvers]
    for i, s in enumerate(cfg.solvers):
        if names.count(s.name) > 1:
            out.append(f"solvers[{i}].name: expected a unique name, got {s.name!r}")
        if s.kind in ("llm", "scaffold") and s.provider not in providers:
            out.append(
                f"solvers[{i}].provider: expected one of {sorted(providers)}, got {s.provider!r}"
            )
        if s.kind == "scaffold" and s.scaffold is None:
            out.append(f"solvers[{i}].scaffold: expected a [solvers.scaffold] table, got none")
        for name in s.scaffold.files if s.scaffold else ():
            if not re.fullmatch(r"[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*", name) or ".." in name:
                out.append(
                    f"solvers[{i}].scaffold.files: expected a relative file name, got {name!r}"
                )
        for pattern in s.scaffold.state if s.scaffold else ():
            if pattern.startswith("/") or ".." in pattern.split("/") or not pattern.strip():
                out.append(
                    f"solvers[{i}].scaffold.state: expected a path inside the workspace, "
                    f"got {pattern!r}"
                )
    sw = cfg.sweep
    for key, value, least in (
        ("concurrency", sw.concurrency, 1),
        ("repeats", sw.repeats, 1),
        ("infra_retries", sw.infra_retries, 0),
        ("browser_contexts", sw.browser_contexts, 0),
        ("sandbox_starts", sw.sandbox_starts, 1),
        ("image_builds", sw.image_builds, 1),
    ):
        if value < least:
            what = "a positive integer" if least else "an integer >= 0"
            out.append(f"sweep.{key}: expected {what}, got {value}")
    if not sw.cell_timeout_s > 0:
        out.append(f"sweep.cell_timeout_s: expected seconds > 0, got {sw.cell_timeout_s}")
    if sw.max_usd is not None and not sw.max_usd > 0:
        out.append(f"sweep.max_usd: expected dollars > 0, got {sw.max_usd}")
    if sw.max_tokens is not None and sw.max_tokens < 1:
        out.append(f"sweep.max_tokens: expected a positive integer, got {sw.max_tokens}")
    if not sw.arms:
        out.append("sweep.arms: expected at least one arm, got none")
    if sw.cassettes == "replay" and not sw.cassette_dir:
        out.append("sweep.cassette_dir: expected the cassettes' folder to replay, got none")
    if sw.cassettes != "off" and sw.engine == "ray":
        out.append(f"sweep.cassettes: expected 'off' with engine 'ray', got {sw.cassettes!r}")
    return out


def validate(cfg: BenchConfig, where: str) -> None:
    """Raise `ConfigError` naming every out-of-range value (after any overrides)."""
    problems = _problems(cfg)
    if problems:
        raise ConfigError("\n".join(f"{where}:{p}" for p in problems))


def load_config(path: Path) -> BenchConfig:
    where = str(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise ConfigError(f"{where}: no such file") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}") from exc
    try:
        cfg = msgspec.convert(data, BenchConfig)
    except msgspec.ValidationError as exc:
        raise ConfigError(located_error(exc, where)) from exc
    validate(cfg, where)
    return cfg


def config_hash(cfg: BenchConfig, solver: SolverConfig, arm: Arm) -> str:
    """What decides a cell's result besides the task: solver config, arm, scoring, limits."""
    provider = cfg.provider(solver.provider) if solver.kind in ("llm", "scaffold") else None
    payload = msgspec.json.encode(
        {
            "solver": solver,
            "provider": provider
            and {
                "kind": provider.kind,
                "model": provider.model,
                "t": provider.temperature,
                "seed": provider.seed,
            }
            | provider.request_options(),
            "arm": arm,
            "scoring": cfg.scoring,
        }
        # Visual gates may be graded n/a under drift: such rows are not comparable.
        | ({"allow_env_drift": True} if cfg.sweep.allow_env_drift else {}),
        order="deterministic",
    )
    return hashlib.sha256(payload).hexdigest()
