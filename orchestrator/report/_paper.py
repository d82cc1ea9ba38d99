"""Statistics the paper reports beyond the score and regression tables (§5, Appendices
E-F), each a rate with its population spelled out, and what `scope` and `serve` measured.

Populations (the models under test only: no control, no scripted solver; rows that are no
result are already left out; infrastructure faults and bugs of ours are not the solver's):

- interaction vs static DOM (abstract, §5: 29.5%): rows of the regression arm, every
  regime, whose final `dom` gate passes and whose `interaction` gate applies; k = the
  `interaction` gate fails;
- the baseline channel over every covered Change run of the regression arm, completing
  or not (§5: 43.9%);
- on Change tasks of the regression arm, among completing runs (every completion gate
  passes): covered (the untouched R0 served and was verified; Appendix E: 586 of 674);
  the protected-flip rate on the covered subset (9.7%); class (a), a conservative gate
  R0 passed now fails (a baseline regression, 50), and class (b), a conservative gate
  fails that R0 did not pass (it failed there, or did not apply: "already failing before
  the run", 76), both among covered completing runs; complete-but-not-cleared without a
  flip, among completing runs (Table 8: 155);
- failing cells that landed an edit (Appendix F, Table 12: 98.3%): rows of the
  regression arm, every regime, of solvers whose edits go through the harness's
  workspace (a CLI agent writes the files itself and is not counted), that fail the arm's
  task-success notion (whole task for staged, final gate pass for full-spec); k = at
  least one edit applied;
- per model on commonly completed tasks (Appendix E): the Change tasks on which every
  model under test has a completing run of the regression arm; per model, the
  protected-flip rate among its completing runs on those tasks.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

from ..contract import CONSERVATIVE_CONTINUITY_GATES, GATES
from ..records import ManifestRow
from ._analyses import Cards
from ._measures import completing, rate, row_covered, row_flips, row_regressions
from ._model import GateMeasure, Rate, Statistic


def _scored(rows: Sequence[ManifestRow]) -> list[ManifestRow]:
    return [
        r for r in rows if r.result is not None and r.status not in ("infra_error", "harness_error")
    ]


def class_a(r: ManifestRow) -> bool:
    """A conservative gate R0 passed fails on the final workspace."""
    return any(b.gate in CONSERVATIVE_CONTINUITY_GATES for b in row_regressions(r))


def class_b(r: ManifestRow) -> bool:
    """A conservative gate fails on the final workspace that R0 did not pass."""
    regressed = {b.gate for b in row_regressions(r)}
    return any(
        s == "fail" and g in CONSERVATIVE_CONTINUITY_GATES and g not in regressed
        for g, s in r.final_gates.items()
    )


def task_failed(r: ManifestRow) -> bool:
    """The arm's task-success notion fails (paper Appendix C)."""
    s = r.scores
    assert s is not None
    return not (s.whole_task if r.arm == "staged" else s.final_pass)


def _models(rows: Sequence[ManifestRow], arm: str, cards: Cards) -> list[ManifestRow]:
    """The results of the models under test in `arm`."""
    return [r for r in _scored(rows) if r.arm == arm and cards(r.solver).role == "model"]


def further_statistics(
    rows: Sequence[ManifestRow], arm: str, cards: Cards
) -> tuple[Statistic, ...]:
    """The pooled statistics above, over `rows` (results; every regime and arm)."""
    models = _models(rows, arm, cards)
    change = [r for r in models if r.labels.regime == "change"]
    return (
        _interaction(models, arm),
        *_coverage(change, arm),
        *_covered_completing(change, arm),
        _failing_edit(models, arm, cards),
    )


def _interaction(models: list[ManifestRow], arm: str) -> Statistic:
    dom = [r for r in models if r.final_gates.get("dom") == "pass"]
    interactive = [r for r in dom if r.final_gates.get("interaction", "n/a") != "n/a"]
    return Statistic(
        id="interaction",
        label="interaction fails while the static DOM passes",
        population=f"rows whose final dom gate passes and interaction applies, {arm} arm, "
        "every regime, models under test",
        rate=rate(r.final_gates["interaction"] == "fail" for r in interactive),
    )


def _coverage(change: list[ManifestRow], arm: str) -> list[Statistic]:
    done = [r for r in change if completing(r)]
    return [
        Statistic(
            id="covered",
            label="completing runs covered by the baseline channel",
            population=f"completing runs, Change tasks, {arm} arm, models under test",
            rate=rate(row_covered(r) for r in done),
        ),
        Statistic(
            id="baseline-all-covered",
            label="baseline regression over all covered runs",
            population=f"covered runs (completing or not), Change tasks, {arm} arm, models "
            "under test",
            rate=rate(bool(row_regressions(r)) for r in change if row_covered(r)),
        ),
        Statistic(
            id="covered-tasks",
            label="Change tasks with a baseline (some run covered)",
            population=f"Change tasks run by the models under test, {arm} arm",
            rate=rate(
                any(row_covered(r) for r in change if r.task == t)
                for t in sorted({r.task for r in change})
            ),
        ),
    ]


def _covered_completing(change: list[ManifestRow], arm: str) -> list[Statistic]:
    done = [r for r in change if completing(r)]
    covered = [r for r in done if row_covered(r)]
    pop_cov = f"covered completing runs, Change tasks, {arm} arm, models under test"
    return [
        Statistic(
            id="flip-covered",
            label="protected flip on the covered subset",
            population=pop_cov,
            rate=rate(bool(row_flips(r)) for r in covered),
        ),
        Statistic(
            id="class-a",
            label="class (a): a conservative gate R0 passed now fails",
            population=pop_cov,
            rate=rate(class_a(r) for r in covered),
        ),
        Statistic(
            id="class-b",
            label="class (b): a conservative gate fails that R0 did not pass (already failing)",
            population=pop_cov,
            rate=rate(class_b(r) for r in covered),
        ),
        Statistic(
            id="cnc-no-flip",
            label="complete-not-cleared without a flip",
            population=f"completing runs, Change tasks, {arm} arm, models under test",
            rate=rate(
                bool(r.scores and r.scores.complete_not_cleared) and not row_flips(r) for r in done
            ),
        ),
    ]


def _failing_edit(models: list[ManifestRow], arm: str, cards: Cards) -> Statistic:
    harness = [r for r in models if cards(r.solver).kind != "scaffold"]
    failing = [r for r in harness if task_failed(r)]
    return Statistic(
        id="failing-edit",
        label="failing cells that landed an edit",
        population=f"rows failing the arm's task success, {arm} arm, every regime, models "
        "under test whose edits go through the workspace (CLI agents not counted)",
        rate=rate(r.result is not None and r.result.edits_applied > 0 for r in failing),
    )


def baseline_all_covered(rows: Sequence[ManifestRow]) -> dict[str, Rate]:
    """Per solver, the baseline regression rate over its covered runs of `rows`, completing
    or not (the paper's 43.9% channel, ranked against WCS)."""
    per: dict[str, list[bool]] = defaultdict(list)
    for r in _scored(rows):
        if row_covered(r):
            per[r.solver].append(bool(row_regressions(r)))
    return {s: rate(v) for s, v in sorted(per.items())}


def common_tasks(rows: Sequence[ManifestRow], arm: str, cards: Cards) -> tuple[str, ...]:
    """Change tasks on which every model under test has a completing run in `arm`."""
    change = [r for r in _models(rows, arm, cards) if r.labels.regime == "change"]
    solvers = {r.solver for r in change}
    done: dict[str, set[str]] = defaultdict(set)
    for r in change:
        if completing(r):
            done[r.task].add(r.solver)
    return tuple(sorted(t for t, s in done.items() if solvers and s == solvers))


def per_model_common(rows: Sequence[ManifestRow], arm: str, cards: Cards) -> tuple[Statistic, ...]:
    """Per model, the protected-flip rate among its completing runs on the commonly
    completed tasks (Appendix E: models clearing more stages see more checkpoints)."""
    tasks = set(common_tasks(rows, arm, cards))
    pop = [r for r in _models(rows, arm, cards) if r.task in tasks and completing(r)]
    population = (
        f"completing runs on the {len(tasks)} Change task(s) every model under test "
        f"completed, {arm} arm"
    )
    return tuple(
        Statistic(
            id="flip-common",
            solver=s,
            label="protected flip on commonly completed tasks",
            population=population,
            rate=rate(bool(row_flips(r)) for r in pop if r.solver == s),
        )
        for s in sorted({r.solver for r in pop})
    )


def gate19(r: ManifestRow) -> float:
    """Gate% on the paper's scale (its Appendix B): the gates that did not fail on the
    final workspace over all 19. A signal that cannot fail counts as passed there, so a
    gate that did not apply counts as passed here: the free passes `gate_measures`
    accounts for. A gate the row does not record counts as not passed."""
    return sum(r.final_gates.get(g) in ("pass", "n/a") for g in GATES) / len(GATES)


def _measure(gate: str, population: str, pop: list[ManifestRow], note: str) -> GateMeasure:
    seen = Counter(r.final_gates.get(gate, "n/a") for r in pop)  # type: ignore[call-overload]
    return GateMeasure(
        gate=gate,
        population=population,
        rows=len(pop),
        passed=seen["pass"],
        failed=seen["fail"],
        not_applicable=seen["n/a"],
        note=note,
    )


def gate_measures(rows: Sequence[ManifestRow], cards: Cards) -> tuple[GateMeasure, ...]:
    """What `scope`, `serve` and `build` measured where they pass by construction or do
    not apply (a pass on Gate%/19), so none is a pass nobody explained."""
    scored = _scored(rows)
    return (*_scope_measures(scored, cards), *_serve_measures(scored), *_build_measures(scored))


def _scope_measures(scored: list[ManifestRow], cards: Cards) -> list[GateMeasure]:
    harness = [r for r in scored if cards(r.solver).kind != "scaffold"]
    refused = sum(r.result.edits_refused for r in harness if r.result is not None)
    refusing = sum(bool(r.result and r.result.edits_refused) for r in harness)
    out = [
        _measure(
            "scope",
            "in-harness solvers (edits through the workspace, controls included)",
            harness,
            "the workspace refuses every write outside allowed_paths, so scope cannot fail "
            f"here; the attempts are counted instead: {refused} refused write(s) in {refusing} "
            "row(s)",
        )
    ]
    cli = [r for r in scored if cards(r.solver).kind == "scaffold"]
    if cli:
        out.append(
            _measure(
                "scope",
                "CLI agents (write the files themselves)",
                cli,
                "the final diff is checked against allowed_paths",
            )
        )
    return out


def _serve_measures(scored: list[ManifestRow]) -> list[GateMeasure]:
    out = []
    hugo = [r for r in scored if r.labels.stack == "hugo"]
    if hugo:
        built = sum(r.final_gates.get("build") == "pass" for r in hugo)
        out.append(
            _measure(
                "serve",
                "hugo stack",
                hugo,
                "a Python file server over the dist/ that `hugo` built: it measures that the "
                f"build left a servable site; the Hugo build itself is the build gate (passed in "
                f"{built} of {len(hugo)} row(s))",
            )
        )
    static = [r for r in scored if r.labels.stack == "static"]
    if static:
        out.append(
            _measure(
                "serve",
                "static stack",
                static,
                "a plain file server cannot fail on the workspace: not applicable unless it "
                "actually failed (a pass on Gate%/19)",
            )
        )
    return out


def _build_measures(scored: list[ManifestRow]) -> list[GateMeasure]:
    unbuilt = [r for r in scored if r.final_gates.get("build") == "n/a"]
    if not unbuilt:
        return []
    stacks = ", ".join(sorted({r.labels.stack for r in unbuilt}))
    return [
        _measure(
            "build",
            f"stacks without an install or build command ({stacks})",
            unbuilt,
            "nothing to build: not applicable (a pass on Gate%/19); a broken page shows in "
            "routes, console and the authored checks instead",
        )
    ]
