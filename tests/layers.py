"""The layers of `orchestrator` and `sandbox` (#40): the map that `tests/core/test_layers.py`
checks every import against and the README's "Layout" table mirrors
(`tests/core/test_readme_layout.py`); and one level inside a package, `INNER` (#57)."""

from __future__ import annotations

# Top first. A unit may import only units of lower layers.
LAYERS: list[set[str]] = [
    {"__main__"},
    {"cli"},  # loads `commands` by name (importlib): no static arrow
    {"commands"},
    {"admission"},  # the suite's admission, its record, the grader's fingerprint, CI's sample
    {"regrade"},  # grading recorded trajectories
    {"audit", "sweep"},  # many cells: a sweep, a run's audit
    {"cell", "report"},  # one cell; the report over a run's rows
    {"solvers", "solver_cards"},
    {"config", "faults"},
    {"checkpoint", "events", "scoring"},
    {"gateway", "persona", "verifier"},
    {"authoring", "cluster_ledger", "lint", "llm", "records", "workspace"},
    # The bottom: the contract and the sandbox import neither `orchestrator` nor each other.
    {"budget", "contract", "cpu", "interrupts", "private_dir", "sandbox", "usage"},
]

# One level inside a unit (#57): its rooms (inner packages) and the modules beside them,
# top first; a room may import only rooms of lower rows (`__init__`: the package's face).
INNER: dict[str, list[set[str]]] = {
    "verifier": [
        {"__init__"},
        {"_a11y", "_seam"},  # continuity rules and a11y evidence; the seam, BrowserVerifier
        {"_verify"},  # `verify`: a checkpoint's replays planned, run and graded
        {"_reuse"},  # replays kept across checkpoints, opens traced, pages shared, verdicts
        {"_replay"},  # one state driven, observed and checked on a page; evidence capture
        {"_browser"},  # Chromium: pool, contexts, confinement, environment, isolated world
        {"_core", "_version"},  # errors, run health, observations, plans, gate verdicts
    ],
    "admission": [
        {"__init__"},
        {"_composition", "_select", "_verified"},  # the suite: its composition, CI's sample
        {"_record"},  # tasks/ADMISSION.json; kept admissions and the store
        {"_admit"},  # one task's controls run and judged
        {"_grader"},  # the grader's fingerprint
    ],
    "records": [
        {"__init__"},
        {"_manifest", "trajectory"},  # a run's manifest.jsonl; a cell's trajectory.jsonl
        {"_rows"},  # a manifest row: a cell's identity and its outcome
        {"_jsonl", "_results"},  # the one JSONL reader; verification results
    ],
}
