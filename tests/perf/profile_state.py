"""Where one replayed state's CPU goes: the verifier's real state replay, in a loop.

Run: `python tests/perf/profile_state.py [--task T] [--state S] [-n N] [--rounds R]
[--variant V ...] [--json PATH]`.

The task's reference work tree (repo + every unit's reference patch) is served by
`python3 -m http.server` in a child process (static tasks only). One `BrowserPool`
(reuse mode, one context at a time) replays the state the way a checkpoint does: the
job `_verify._jobs._plan` makes for it (all of the state's checks, fingerprint, artifacts on
disk), on the reset tab of a warm context (`BrowserPool.run(..., warm)`), N times
per round, variants interleaved round by round so host noise hits them alike.

Per step, the CPU of every process of the tree (this one, the Playwright driver, the
browser, renderers, other Chromium processes; the server's is left out) is read from
`/proc/<pid>/task/*/schedstat` (ns, per thread) before and after each wrapped step of the
replay, so the table says which step the CPU was spent in, by process kind. Work a
process does after its step returned (a renderer finishing a frame) falls in the next
step. `total` is the whole loop's tree CPU from `/proc/<pid>/stat` (counts exited threads).

Variants (each a measurement aid, never shipped; `base` is the real replay):
`base`; `bare` (goto + one screenshot on the same warm page, no verifier);
`no-shot` (no state screenshot); `no-checks` (no check evaluated); `no-health`;
`no-reset` (the page is closed, the context neither cleared nor proven clean).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any
from unittest import mock

import anyio

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from orchestrator.contract import load_task, resolve_viewport  # noqa: E402
from orchestrator.verifier._browser import BrowserPool, BrowserSession  # noqa: E402
from orchestrator.verifier._browser import _pool as _browser  # noqa: E402
from orchestrator.verifier._browser import _warm as _browser_warm  # noqa: E402
from orchestrator.verifier._browser import _world as _replay_world  # noqa: E402
from orchestrator.verifier._browser._context import open_context  # noqa: E402
from orchestrator.verifier._core._observe import PageHealth  # noqa: E402
from orchestrator.verifier._replay import _a11y as _replay_a11y  # noqa: E402
from orchestrator.verifier._replay import _drive as _replay  # noqa: E402
from orchestrator.verifier._replay import _state as _replay_state  # noqa: E402
from orchestrator.verifier._replay._probe import read_health  # noqa: E402
from orchestrator.verifier._verify import _jobs  # noqa: E402

VARIANTS = ("base", "bare", "no-shot", "no-checks", "no-health", "no-reset", "cdp+10", "shot+1")
TICK = os.sysconf("SC_CLK_TCK")


def _kind(pid: int) -> str:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "gone"
    if pid == os.getpid():
        return "python"
    if b"--type=renderer" in cmd:
        return "renderer"
    if b"--type=gpu" in cmd:
        return "gpu"
    if b"--type=" in cmd:
        return "chromium-other"
    if b"node" in cmd and b"playwright" in cmd:
        return "driver"
    return "browser" if b"chrom" in cmd else "other"


def _tree(root: int, skip: set[int]) -> list[int]:
    children: dict[int, list[int]] = defaultdict(list)
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        children[ppid].append(int(d))
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        if pid in skip:
            continue
        out.append(pid)
        todo.extend(children.get(pid, ()))
    return out


class Meter:
    """CPU by process kind of this process's tree, per named step."""

    def __init__(self, skip: set[int]) -> None:
        self.skip = skip
        self.pids: list[int] = []
        self.kinds: dict[int, str] = {}
        self.steps: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        self.calls: dict[str, int] = defaultdict(int)
        self.active = ""
        self.refresh()

    def refresh(self) -> None:
        self.pids = _tree(os.getpid(), self.skip)
        self.kinds = {p: _kind(p) for p in self.pids}

    def snap(self) -> dict[tuple[int, bool], int]:
        """Ticks per process: (pid, False) its own utime+stime (exited threads included),
        (pid, True) the CPU of its children that ended and were reaped (cutime+cstime)."""
        out: dict[tuple[int, bool], int] = {}
        for pid in self.pids:
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:
                continue
            f = stat[stat.rindex(")") + 2 :].split()
            out[pid, False] = int(f[11]) + int(f[12])
            out[pid, True] = int(f[13]) + int(f[14])
        return out

    def label(self, key: tuple[int, bool]) -> str:
        kind = self.kinds[key[0]]
        return f"ended children of {kind}" if key[1] else kind

    def totals(self) -> dict[str, float]:
        """CPU by kind in s (see `snap`)."""
        out: dict[str, float] = defaultdict(float)
        for key, ticks in self.snap().items():
            out[self.label(key)] += ticks / TICK
        return out

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        if self.active:  # nested: counted in the outer step only
            yield
            return
        self.active = name
        before = self.snap()
        try:
            yield
        finally:
            after = self.snap()
            for key, ticks in after.items():
                self.steps[name][self.label(key)] += (ticks - before.get(key, 0)) / TICK
            self.calls[name] += 1
            self.active = ""


def _wrap(meter: Meter, owner: Any, attr: str, name: str) -> None:
    orig = getattr(owner, attr)

    async def wrapped(*a: Any, **k: Any) -> Any:
        with meter.step(name):
            return await orig(*a, **k)

    setattr(owner, attr, wrapped)


def _instrument(meter: Meter) -> None:
    rs, rp, wc = _replay_state, _replay, _browser_warm.WarmContext
    _wrap(meter, rs, "prepare", "prepare (init script, clock)")
    _wrap(meter, rs, "navigate", "goto")
    _wrap(meter, rs, "run_actions", "actions (+ quiet after each)")
    _wrap(meter, rs, "settle", "settle (quiet, fonts, 2 frames, selector)")
    _wrap(meter, rp.Recorder, "quiet", "quiet after load")
    _wrap(meter, rs, "read_health", "health probe")
    _wrap(meter, rs, "_outcomes", "checks")
    _wrap(meter, rs, "_screenshot", "state screenshot (PNG to disk)")
    _wrap(meter, rs, "_menus", "menu trials")
    _wrap(meter, wc, "new_page", "new page")
    _wrap(meter, wc, "reset", "reset: close page, clear, prove")
    # The accessibility snapshot (`--a11y`: a full-suite run's replay).
    _wrap(meter, _replay_a11y, "run_axe", "a11y: axe-core")
    _wrap(meter, _replay_a11y, "read_fields", "a11y: form fields")
    _wrap(meter, _replay_a11y, "read_live", "a11y: live regions")
    _wrap(meter, _replay_a11y, "focus_walk", "a11y: focus walk (and traps)")
    _wrap(meter, rs, "announced", "a11y: title, lang, live regions and their log")


def _serve(task_root: Path, tmp: Path) -> tuple[subprocess.Popen[bytes], str]:
    work = tmp / "site"
    subprocess.run(["cp", "-r", str(task_root / "repo"), str(work)], check=True)
    for patch in sorted((task_root / "reference").glob("*.patch")):
        subprocess.run(["git", "apply", str(patch)], cwd=work, check=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server, url
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"the static server on port {port} never answered")


async def _bare(session: BrowserSession, url: str, shot: Path) -> None:
    await session.page.goto(url, wait_until="load")
    await session.page.screenshot(path=shot, animations="disabled", caret="hide")


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    task = load_task(ROOT / "tasks" / args.task)
    contract = task.contract
    state = contract.state(args.state)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        server, url = _serve(task.root, tmp)
        cgroup = _own_cgroup()
        art = tmp / "art"
        (art / "states").mkdir(parents=True)
        try:
            out = await _loop(args, task, state, url, art, server.pid, cgroup)
            return out
        finally:
            server.terminate()
            server.wait()
            if cgroup is not None:
                (cgroup.parent / "cgroup.procs").write_text(str(os.getpid()))
                with contextlib.suppress(OSError):
                    cgroup.rmdir()


def _own_cgroup() -> Path | None:
    """This process (and every child it starts from now on) in a cpuacct cgroup of its own:
    the tree's total CPU, processes that ended included. None when not root."""
    cg = Path("/sys/fs/cgroup/cpuacct") / f"pwb-profile-{os.getpid()}"
    try:
        cg.mkdir()
        (cg / "cgroup.procs").write_text(str(os.getpid()))
    except OSError:
        return None
    return cg


def _cg_s(cg: Path | None) -> float:
    return int((cg / "cpuacct.usage").read_text()) / 1e9 if cg is not None else float("nan")


async def _loop(
    args: argparse.Namespace,
    task: Any,
    state: Any,
    url: str,
    art: Path,
    server: int,
    cgroup: Path | None,
) -> dict[str, Any]:
    checks = list(task.contract.checks)
    opts = _replay.ReplayOptions()
    jobs = _jobs._plan(task, url, checks, [state.id], art, opts, ahead=True, a11y=args.a11y)
    (job,) = [j for j in jobs if j.key == state.id]
    viewport = resolve_viewport(state.viewport)
    results: dict[str, Any] = {}
    async with BrowserPool(max_contexts=1) as pool:
        meter = Meter(skip={server})
        seen: set[int] = set()
        _ACTIVE[:] = [meter]
        _instrument(_Proxy())  # type: ignore[arg-type]
        warm = pool.warm_contexts()
        meters: dict[str, Meter] = {}
        totals: dict[str, dict[str, float]] = {v: defaultdict(float) for v in args.variant}
        walls: dict[str, float] = defaultdict(float)
        cg: dict[str, float] = defaultdict(float)
        shots: list[int] = []

        async def run(variant: str) -> None:
            if variant == "bare":
                bare = _bare_job(url + state.route, art / "states" / "bare.png")
                await pool.run(url, viewport, bare, warm)
                return
            j = job if variant != "no-checks" else replace(job, checks=())
            await pool.run(url, viewport, _job(j), warm)

        for _ in range(2):  # warm-up: the context, the renderer, the caches
            await run("base")
        for _ in range(args.rounds):
            for variant in args.variant:
                meter.refresh()
                m = meters.setdefault(variant, Meter(skip={server}))
                m.pids, m.kinds = meter.pids, meter.kinds
                undo = _apply(variant, m)
                try:
                    before = meter.totals()
                    c0 = _cg_s(cgroup)
                    t0 = time.monotonic()
                    for _ in range(args.n):
                        await run(variant)
                    walls[variant] += time.monotonic() - t0
                    cg[variant] += _cg_s(cgroup) - c0
                    after = meter.totals()
                    meter.refresh()
                    seen |= {p for p in meter.pids if meter.kinds[p] == "renderer"}
                finally:
                    undo()
                for k, v in after.items():
                    totals[variant][k] += v - before.get(k, 0.0)
            png = art / "states" / f"{job.key}.png"
            if png.exists():
                shots.append(png.stat().st_size)
        per = args.n * args.rounds
        for variant in args.variant:
            steps = meters[variant].steps
            results[variant] = {
                "cpu_per_state_s": {k: round(v / per, 4) for k, v in totals[variant].items()},
                "cpu_per_state_total_s": round(sum(totals[variant].values()) / per, 4),
                # The cgroup's figure: every process of the tree, ended ones included.
                "cgroup_cpu_per_state_s": round(cg[variant] / per, 4),
                "wall_per_state_s": round(walls[variant] / per, 4),
                "steps_per_state_s": {
                    s: {k: round(v / per, 4) for k, v in by.items() if abs(v) > 1e-6}
                    for s, by in steps.items()
                },
                "step_calls_per_state": {
                    s: round(n / per, 2) for s, n in meters[variant].calls.items()
                },
            }
        if args.idle:
            # The pool idle, its warm context(s) kept: what waiting between checkpoints costs.
            meter.refresh()
            before, c0 = meter.totals(), _cg_s(cgroup)
            await anyio.sleep(args.idle)
            after = meter.totals()
            results["idle"] = {
                "seconds": args.idle,
                "cgroup_cpu_s": round(_cg_s(cgroup) - c0, 3),
                "cpu_s": {k: round(v - before.get(k, 0.0), 3) for k, v in after.items()},
            }
        results["_meta"] = {
            "task": args.task,
            "state": state.id,
            "checks": [c.id for c in job.checks],
            "n": args.n,
            "rounds": args.rounds,
            "state_png_bytes": shots[-1] if shots else 0,
            "load_avg": os.getloadavg(),
            "warm": dict(warm.counts),
            "renderer_pids_seen": len(seen),
            "chromium_args": list(_browser.CHROMIUM_ARGS),
            "no_route": args.no_route,
        }
    return results


_ACTIVE: list[Meter] = []


def _apply(variant: str, meter: Meter) -> Callable[[], None]:
    """Point the step wrappers at `meter` and patch in the variant; returns the undo."""
    _ACTIVE[:] = [meter]
    undo: list[Callable[[], None]] = []

    def patch(owner: Any, attr: str, new: Any) -> None:
        old = getattr(owner, attr)
        setattr(owner, attr, new)
        undo.append(lambda: setattr(owner, attr, old))

    if variant == "no-shot":

        async def no_shot(page: Any, job: Any) -> str:
            return ""

        patch(_replay_state, "_screenshot", no_shot)
    elif variant == "no-health":

        async def no_health(page: Any, fp: bool) -> tuple[PageHealth, str]:
            return PageHealth(), ""

        patch(_replay_state, "read_health", no_health)
    elif variant in ("cdp+10", "shot+1"):
        # A calibration: the health step also pays 10 isolated-world awaits (each its own
        # CDP session, as `_replay_world` does), or one more viewport screenshot.
        orig = read_health  # what `_replay_state` calls (each variant's patch is undone)

        async def more(page: Any, fp: bool) -> tuple[PageHealth, str]:
            if variant == "cdp+10":
                for _ in range(10):
                    await _replay_world._isolated_await(page, "1", 5.0, "pwb-cal")
            else:
                await page.screenshot(animations="disabled", caret="hide")
            return await orig(page, fp)

        patch(_replay_state, "read_health", more)
    elif variant == "no-reset":

        async def no_reset(self: Any, page: Any) -> str:
            await page.close()
            return ""

        patch(_browser_warm.WarmContext, "reset", no_reset)

    def undo_all() -> None:
        for u in reversed(undo):
            u()

    return undo_all


def _job(job: Any) -> Callable[[BrowserSession], Awaitable[Any]]:
    async def go(session: BrowserSession) -> Any:
        return await _replay_state.replay_shared(session, job, ())

    return go


def _bare_job(url: str, shot: Path) -> Callable[[BrowserSession], Awaitable[None]]:
    async def go(session: BrowserSession) -> None:
        await _bare(session, url, shot)

    return go


class _Proxy:
    """The step wrappers record into whichever meter the current variant uses."""

    def __getattr__(self, name: str) -> Any:
        return getattr(_ACTIVE[0], name)


def _print(results: dict[str, Any]) -> None:
    meta = results["_meta"]
    print(f"# {meta['task']} / {meta['state']}: {len(meta['checks'])} checks, ", end="")
    print(f"{meta['n']}x{meta['rounds']} per variant, load {meta['load_avg']}")
    print(f"# state PNG {meta['state_png_bytes']} bytes; warm contexts {meta['warm']}", end="")
    print(f"; renderer pids seen at round ends: {meta['renderer_pids_seen']}")
    for variant, r in results.items():
        if variant == "idle":
            print(f"\nidle {r['seconds']} s: cgroup {r['cgroup_cpu_s']} CPU-s {r['cpu_s']}")
            continue
        if variant == "_meta":
            continue
        kinds = " ".join(f"{k}={v:.3f}" for k, v in sorted(r["cpu_per_state_s"].items()))
        print(f"\n{variant}: {r['cpu_per_state_total_s']:.3f} CPU-s/state ({kinds}); ", end="")
        print(f"cgroup {r['cgroup_cpu_per_state_s']:.3f}; wall {r['wall_per_state_s']:.3f} s")
        for step, by in sorted(r["steps_per_state_s"].items(), key=lambda x: -sum(x[1].values())):
            calls = r["step_calls_per_state"][step]
            detail = " ".join(f"{k}={v:.3f}" for k, v in sorted(by.items()))
            print(f"  {sum(by.values()):7.3f}  {step} (x{calls}): {detail}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--task", default="fernhill-save-tools")
    p.add_argument("--state", default="catalog_saved_d")
    p.add_argument("-n", type=int, default=10, help="replays per variant per round")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--variant", nargs="+", default=["base", "bare"], choices=VARIANTS)
    p.add_argument("--idle", type=float, default=0.0, help="then measure S s of idling")
    p.add_argument("--json", type=Path, help="also write the results here")
    p.add_argument("--a11y", action="store_true", help="take the accessibility snapshot too")
    p.add_argument(
        "--chromium-arg", action="append", default=[], help="added to CHROMIUM_ARGS (trials)"
    )
    p.add_argument("--no-route", action="store_true", help="contexts without the off-origin route")
    args = p.parse_args()
    if args.no_route:

        async def bare_context(browser: Any, egress: Any, origin: str, viewport: Any) -> Any:
            context = await open_context(browser, egress, origin, viewport)
            await context.unroute_all()
            return context

        # `_browser` calls the name it imported: patched there, for the whole process.
        mock.patch.object(_browser, "open_context", bare_context).start()
    _browser.CHROMIUM_ARGS = (*_browser.CHROMIUM_ARGS, *args.chromium_arg)
    results = anyio.run(_main, args)
    _print(results)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
