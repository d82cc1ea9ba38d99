"""What a report needs to know about each solver of a sweep, written next to its manifest.

A manifest row names its solver; the card says what that solver is: a model under test,
a control (`reference`, `negative`, `noop`, `thrash`) or a scripted provider (`fake`),
which scaffold drives which backbone, and its ablation options. Reports keep controls and
scripted solvers out of pooled rows and rank correlations, and pair solvers that differ
in exactly one option.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec

from .config import BenchConfig, SolverConfig

Role = Literal["model", "control", "scripted"]
CONTROL_KINDS = frozenset({"reference", "negative", "noop", "thrash"})
CARDS_FILE = "solvers.json"
BUILTIN_SCAFFOLD = "pwb-agent"  # the harness's own tool loop (kind "llm")
OptionValue = str | int | float | bool | None


class SolverCard(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    kind: str
    role: Role
    scaffold: str = ""  # what wraps the model: "pwb-agent", or the scaffold solver's name
    backbone: str = ""  # the model: the provider's `model`, or the scaffold's `backbone`
    provider: str = ""
    options: dict[str, OptionValue] = {}


def card_for(cfg: BenchConfig, s: SolverConfig) -> SolverCard:
    if s.kind in CONTROL_KINDS:
        return SolverCard(name=s.name, kind=s.kind, role="control")
    if s.kind == "mixed":
        # The offline stand-in for a model (`solvers.MixedSolver`): pooled as a model is,
        # so that a sweep of it exercises every population of the report.
        return SolverCard(
            name=s.name, kind=s.kind, role="model", scaffold="offline-mixed", backbone=s.name
        )
    if s.kind == "scaffold":
        sc = s.scaffold
        through = cfg.provider(s.provider)  # the gateway forwards its calls there
        return SolverCard(
            name=s.name,
            kind=s.kind,
            role="scripted" if through.kind == "fake" else "model",
            scaffold=s.name,
            backbone=(sc.backbone if sc is not None else "") or through.model,
            provider=through.name,
            options={"wording": s.wording},
        )
    provider = cfg.provider(s.provider)
    options: dict[str, OptionValue] = msgspec.to_builtins(s.options) | {"wording": s.wording}
    return SolverCard(
        name=s.name,
        kind=s.kind,
        role="scripted" if provider.kind == "fake" else "model",
        scaffold=BUILTIN_SCAFFOLD,
        backbone=provider.model,
        provider=provider.name,
        options=options,
    )


def write_cards(run_dir: Path, cfg: BenchConfig, solvers: list[SolverConfig]) -> None:
    """Merge this sweep's solvers into `RUN_DIR/solvers.json` (a resumed sweep adds)."""
    cards = read_cards(run_dir) | {s.name: card_for(cfg, s) for s in solvers}
    data = msgspec.json.format(msgspec.json.encode(sorted(cards.values(), key=lambda c: c.name)))
    tmp = run_dir / (CARDS_FILE + ".tmp")
    tmp.write_bytes(data + b"\n")
    tmp.replace(run_dir / CARDS_FILE)


def read_cards(run_dir: Path) -> dict[str, SolverCard]:
    path = run_dir / CARDS_FILE
    if not path.is_file():
        return {}
    try:
        cards = msgspec.json.decode(path.read_bytes(), type=list[SolverCard])
    except (msgspec.DecodeError, msgspec.ValidationError):
        return {}
    return {c.name: c for c in cards}


def guess_card(name: str) -> SolverCard:
    """A run without `solvers.json` (older runs): the shipped names say the role."""
    base = name.split(":", 1)[0]
    if base in CONTROL_KINDS:
        return SolverCard(name=name, kind=base, role="control")
    if base.startswith("fake"):
        return SolverCard(name=name, kind="llm", role="scripted")
    return SolverCard(name=name, kind="", role="model")
