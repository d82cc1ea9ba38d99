"""The layers of `orchestrator` and `sandbox` (#40): the map that `tests/repo/test_layers.py`
checks every import against and the README's "Layout" table mirrors
(`tests/repo/test_readme_layout.py`); and one level inside a package, `INNER` (#57)."""

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
    {"checkpoint", "events", "lint", "scoring"},  # lint reads the verifier's bars
    {"gateway", "persona", "verifier"},
    {"authoring", "cluster_ledger", "llm", "records", "workspace"},
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
    "sweep": [
        {"__init__"},
        {"_sweep"},  # `run_sweep`: plan, engine, progress, manifest
        {"_engine"},  # where cells run: this host's event loop or Ray
        {"_ray"},  # the Ray engine: cells placed on hosts, rows from its ledger
        {"_ray_gc", "_ray_host"},  # a host's leftovers; a host's own cell runner
        {"_ray_cell"},  # one cell in a Ray worker
        {"_jobs", "_progress", "_runner"},  # the plan; the live table; one cell with retries
        # what every room may use: the sweep's types, agent images, a delivered cell's
        # parts, task packages shipped to hosts, the Ray ledger, the run's spec
        {"_agents", "_core", "_delivery", "_packages", "_ray_ledger", "_runspec"},
    ],
    "report": [
        {"__init__"},
        {"_build"},  # report.md, index.html and the plots of one run
        {"_html", "_markdown"},  # the two renderings
        {"_sections"},  # the sections both renderings share
        {"_tables"},  # the tables of every section
        {"_aggregate", "_tables_paper"},  # every figure of a run; the paper's tables
        {"_paper", "_rankings", "_sizes", "_trajectory"},  # paper analyses, ranks, power
        # analyses of the rows: regressions, summary line, twins
        {"_analyses", "_regressions", "_summary", "_tables_analyses", "_twins"},
        {"_measures", "_plots", "_tables_fmt"},  # WCS and rates; plots; cell formats
        {"_model"},  # the report's model of a run
        {"_cells", "_evidence", "_glossary", "_load", "_stats"},  # inputs and statistics
    ],
    "llm": [
        {"__init__"},
        {"_pool"},  # a sweep's clients, one per provider
        {"_client"},  # one provider's client: retries, breaker, keys, classification
        {"_anthropic", "_breaker", "_openai"},  # the two wire formats; the circuit breaker
        {"_dialect", "_errors", "_keys", "_retry"},  # tool-call dialects, errors, keys
        # error classes, config, fake provider, cassettes (record/replay a provider)
        {"_cassette", "_classify", "_config", "_fake", "_types"},
    ],
}
