"""A configuration problem is the operator's, not the model's (issue #41, item 1).

No credit, a key missing where the cell runs, a parameter the model rejects: the cell
ends `config_error` (no result), the sweep stops at the first one with the reason and
exit 3, the report (written anyway) never scores it, and `--resume` re-runs it once the
setup is fixed. Whole sweeps through the CLI, in process, with the strict fake provider
on loopback and the cells on the fake sandbox and verifier (`tests.fakesweep`).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from orchestrator.cli import main
from orchestrator.llm import FakeProvider, Fault, error_info
from orchestrator.records import ConfigRefusal, read_rows
from orchestrator.report import aggregate, load_run
from tests.fakesweep import fake_engine, serving
from tests.fixtures.bench import bench

KEY_ENV = "PWB_TEST_CONFIG_KEY"
KEY = "sk-config-test-5d2e"
CELLS = 3
PAID = """
[[providers]]
name = "paid"
kind = "openai"
base_url = "{url}"
model = "{model}"
api_key_env = "{env}"
backoff_initial_s = 0.01
price_in_per_mtok = 1.0
price_out_per_mtok = 2.0
"""


def _anthropic(message: str, kind: str = "invalid_request_error") -> dict[str, object]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def _config(tmp: Path, url: str, model: str = "gpt-x") -> Path:
    return bench(
        tmp,
        repeats=CELLS,
        concurrency=1,
        solver="paid-llm",
        kind="llm",
        solver_extra='provider = "paid"',
        extra=PAID.format(url=url, env=KEY_ENV, model=model),
    )


def _sweep(config: Path, *args: str) -> int:
    return main(["--config", str(config), "--quiet", *args])


def _stopped_sweep_is_reported_unscored(
    tmp: Path, run_dir: Path, code: int, err: str, out: str, reason: str
) -> None:
    assert code == 3, err  # stopped early, resumable
    assert reason in err and "config_error" in err, err
    assert f"--resume {run_dir}" in out
    rows = read_rows(run_dir / "manifest.jsonl")
    statuses = Counter(r.status for r in rows)
    # The first cell met the refusal; the sweep stopped before the others ran.
    assert statuses == Counter({"config_error": 1, "cancelled": CELLS - 1}), statuses
    (refused,) = [r for r in rows if r.status == "config_error"]
    assert isinstance(refused.outcome, ConfigRefusal) and reason in refused.error
    assert refused.result is None
    # The report of the stopped sweep is written (exit 3 too) and scores nothing.
    assert (run_dir / "report.md").is_file() and (run_dir / "report" / "index.html").is_file()
    assert "config_error" in (run_dir / "report.md").read_text()
    rep = aggregate(load_run(run_dir, tmp / "tasks"), run_dir.name)
    assert rep.header.statuses.get("config_error") == 1
    assert rep.header.cancelled == CELLS
    assert rep.scores.rows == () and rep.scores_infra_zero.rows == ()


def _resume_reruns_them(tmp: Path, config: Path, run_dir: Path) -> None:
    assert _sweep(config, "--resume", str(run_dir), "--no-report") == 0
    rows = read_rows(run_dir / "manifest.jsonl")
    latest = {r.cell: r for r in rows}
    assert len(latest) == CELLS and len(rows) == 2 * CELLS
    assert {r.status for r in latest.values()} == {"ok"}
    assert all(r.scores is not None and r.scores.whole_task for r in latest.values())


def test_no_credit_is_a_config_error_that_stops_the_sweep_and_resume_reruns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_engine(monkeypatch)
    monkeypatch.setenv(KEY_ENV, KEY)
    tasks = bench(tmp_path, repeats=1, concurrency=1).parent / "tasks"
    with serving(FakeProvider(task_dir=tasks / "tiny-shop", api_key=KEY)) as fake:
        fake.add_faults(Fault(kind="no_credit", times=0))
        config = _config(tmp_path, fake.base_url)
        run_dir = tmp_path / "run"
        code = _sweep(config, "--run-dir", str(run_dir))
        cap = capsys.readouterr()
        _stopped_sweep_is_reported_unscored(
            tmp_path, run_dir, code, cap.err, cap.out, "insufficient_quota"
        )
        assert len(fake.requests) == 1  # one request, not one per cell
        fake.clear_faults()  # the operator topped the account up
        _resume_reruns_them(tmp_path, config, run_dir)


def test_a_key_missing_where_the_cell_runs_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_engine(monkeypatch)
    monkeypatch.delenv(KEY_ENV, raising=False)
    tasks = bench(tmp_path, repeats=1, concurrency=1).parent / "tasks"
    with serving(FakeProvider(task_dir=tasks / "tiny-shop", api_key=KEY)) as fake:
        config = _config(tmp_path, fake.base_url)
        run_dir = tmp_path / "run"
        code = _sweep(config, "--run-dir", str(run_dir))
        cap = capsys.readouterr()
        _stopped_sweep_is_reported_unscored(
            tmp_path, run_dir, code, cap.err, cap.out, f"${KEY_ENV} is not set"
        )
        assert fake.requests == []  # nothing was sent without a key
        monkeypatch.setenv(KEY_ENV, KEY)  # the operator exported it
        _resume_reruns_them(tmp_path, config, run_dir)


def test_a_parameter_the_model_rejects_is_a_config_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A reasoning model refuses `max_tokens` (the real API's 400 unsupported_parameter):
    the setup names the wrong parameter, every cell would get the same answer."""
    fake_engine(monkeypatch)
    monkeypatch.setenv(KEY_ENV, KEY)
    tasks = bench(tmp_path, repeats=1, concurrency=1).parent / "tasks"
    with serving(FakeProvider(task_dir=tasks / "tiny-shop", api_key=KEY)) as fake:
        config = _config(tmp_path, fake.base_url, model="o3")
        run_dir = tmp_path / "run"
        code = _sweep(config, "--run-dir", str(run_dir))
        cap = capsys.readouterr()
        _stopped_sweep_is_reported_unscored(
            tmp_path, run_dir, code, cap.err, cap.out, "unsupported_parameter"
        )
        assert len(fake.requests) == 1
        # The operator names the parameters this model takes (a new config hash).
        text = config.read_text().replace(
            'model = "o3"\n',
            'model = "o3"\nmax_tokens_param = "max_completion_tokens"\nsend_temperature = false\n',
        )
        config.write_text(text)
        _resume_reruns_them(tmp_path, config, run_dir)


@pytest.mark.parametrize(
    ("status", "body", "verdict"),
    [
        # OpenAI: a parameter or value this model does not take, a model that is not there
        (
            400,
            {"error": {"type": "invalid_request_error", "code": "unsupported_parameter"}},
            "config",
        ),
        (400, {"error": {"type": "invalid_request_error", "code": "unsupported_value"}}, "config"),
        (404, {"error": {"type": "invalid_request_error", "code": "model_not_found"}}, "config"),
        # Anthropic: its documented messages (no code)
        (400, _anthropic("temperature may only be set to 1 when thinking is enabled"), "config"),
        (400, _anthropic("`max_tokens` must be greater than `thinking.budget_tokens`"), "config"),
        (
            400,
            _anthropic(
                "max_tokens: 100000 > 64000, which is the maximum allowed number of "
                "output tokens for claude-x"
            ),
            "config",
        ),
        (404, _anthropic("model: claude-nonexistent", "not_found_error"), "config"),
        # no credit stays its own verdict; a bad message shape is the request's, not setup
        (429, {"error": {"type": "insufficient_quota", "code": "insufficient_quota"}}, "no_credit"),
        (400, {"error": {"type": "invalid_request_error", "code": "invalid_value"}}, "other"),
        (400, _anthropic("messages: text content blocks must be non-empty"), "other"),
        (404, _anthropic("no route POST /v1/x", "not_found_error"), "other"),
    ],
)
def test_the_classifier_tells_a_setup_refusal_from_a_request_s_fault(
    status: int, body: dict[str, object], verdict: str
) -> None:
    assert error_info(status, json.dumps(body)).verdict == verdict
