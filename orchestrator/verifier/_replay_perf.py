"""The main thread as the renderer timed it: its long tasks, and a page that never yields.

**Long tasks** (`read_main_thread`, #53). A `PerformanceObserver` for `longtask` entries
is registered in every document of the page before any of the site's scripts runs:
CDP `Page.addScriptToEvaluateOnNewDocument` with a `worldName`, so it lives in an
isolated world of its own (`PERF_WORLD`), where the site can neither see, replace nor
reset it; it is read back from the same world (`Page.createIsolatedWorld` with that name
returns the world the script ran in). What the state reports is the figure of the
document it ends on (a reload or a `goto` action starts a new one): its long tasks'
count, the longest, and the *total blocking time* — the sum of each task's time over
50 ms, Lighthouse's TBT (over the whole state rather than up to interactive).

*Wall time, not thread time.* A long task's `duration` is the renderer's own
measurement of how long its main thread was busy with that task, on the monotonic
clock: wall time, not CPU time. That is what a user waits through, and it is what makes
the rule hold under host load for a page that blocks on purpose: a busy loop on
`performance.now()` or `Date.now()` is defined by wall time and lasts its 1.5 s whatever
share of a CPU it gets (its CPU time would shrink under load, and a CPU-time rule would
let it pass). The other way round, CPU steal stretches a task's wall time by the share
it lost: a page whose state does W ms of work in long tasks reads ~W/share. The rule
(`_perf_gate.py`) therefore compares with the base at the same state and allows it
1000 ms more: for load alone to fail a page, its state must run a second of long-task
work more than the base showed, which no small page does (our sites' states run
tens of ms); and admission grades R0, the reference and the negatives under the same
load. Tasks under 50 ms are not long tasks and count for nothing, as in TBT.

**A page that never yields** (`main_thread_blocked`). A script that never returns
(`while (true) {}`) stops every call that needs the page's main thread: `page.goto`
waits for a load event that never comes, screenshots and probes time out, and before
#53 each such timeout read as a loaded host (a patient replay, a harness retry). After
a navigation or action timed out, and after every settle, the page's main thread is
probed on a CDP session made before the state's first navigation (attaching one to a
stuck renderer would hang): `Runtime.evaluate` runs on the main thread, so it answers
at once between tasks, host load or not. No answer within `BLOCKED_AFTER_S` (on top of
the timeout that already expired), and `Runtime.terminateExecution` — which the
renderer serves by interrupting the running script, without waiting for the main
thread to be free — answered: a script of the page's held the main thread all that
time. The script is stopped, and the state ends with that message (`_replay_state.py`):
the solver's page, graded, never retried. A renderer that answers neither is not a
script of the page's; the old timeout path (a patient replay) stays with it.
"""

from __future__ import annotations

import json
from typing import Any
from weakref import WeakKeyDictionary

import anyio
from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from ..results import MainThread
from ._replay_world import isolated_eval

PERF_WORLD = "pwb-perf"
LONG_TASK_MS = 50.0
# How long the main thread may leave a probe unanswered, after a timeout already
# expired, before it is blocked; how long the renderer may take to stop the script.
BLOCKED_AFTER_S = 10.0
STOP_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 10.0

# Runs in PERF_WORLD at each new document, before the site's scripts. The document's first
# task (the parser's, which may run an inline script right after this one) started before
# any observer could: Chromium then may not report it. So the script also notes when it
# ran (`at`) and when a message it posts to itself arrives (`tail`: the end of that task,
# at the latest), and `_durations` counts that stretch when no long task covers it.
_OBSERVER = """(() => {
  const tasks = [];
  const at = performance.now();
  let tail = null;
  const keep = (list) => { for (const e of list) tasks.push([e.startTime, e.duration]); };
  const channel = new MessageChannel();
  channel.port1.onmessage = () => { tail = performance.now(); channel.port1.close(); };
  channel.port2.postMessage(0);
  try {
    const seen = new PerformanceObserver((list) => keep(list.getEntries()));
    seen.observe({ type: 'longtask', buffered: true });
    globalThis.__pwbLongTasks = () => {
      keep(seen.takeRecords());
      return { at, tail, tasks: tasks.slice() };
    };
  } catch (e) {
    globalThis.__pwbLongTasks = () => null;
  }
})()"""
_READ = "JSON.stringify(globalThis.__pwbLongTasks ? globalThis.__pwbLongTasks() : null)"


def _durations(raw: dict[str, Any]) -> list[float]:
    """The long tasks' durations, the document's first task's tail among them when no
    reported task covers the moment the observer was made (see `_OBSERVER`)."""
    at, tail = float(raw["at"]), raw.get("tail")
    tasks = [(float(start), float(took)) for start, took in raw["tasks"]]
    durations = [took for _, took in tasks]
    if tail is None or any(start <= at <= start + took for start, took in tasks):
        return durations
    # Up to the message, or to the next reported long task if that began first.
    first = min([float(tail), *(start for start, _ in tasks if start > at)]) - at
    return [first, *durations] if first > LONG_TASK_MS else durations


# The session each watched page was prepared with; it goes with its page.
_WATCHED: WeakKeyDictionary[Page, CDPSession] = WeakKeyDictionary()


async def watch_main_thread(page: Page) -> None:
    """Once per page, before its first navigation: the long-task observer in every new
    document, and the session `main_thread_blocked` probes through."""
    cdp = await page.context.new_cdp_session(page)
    # Without the Page domain enabled on this session its new-document scripts never run.
    await cdp.send("Page.enable")
    await cdp.send(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _OBSERVER, "worldName": PERF_WORLD}
    )
    _WATCHED[page] = cdp


def total_blocking(durations: list[float]) -> MainThread:
    """The figures of a document's long tasks (their durations in ms)."""
    over = [max(0.0, d - LONG_TASK_MS) for d in durations]
    return MainThread(
        blocking_ms=round(sum(over), 1),
        longest_ms=round(max(durations, default=0.0), 1),
        long_tasks=len(durations),
    )


async def read_main_thread(page: Page) -> MainThread | None:
    """The state's document's long tasks so far; None when they could not be read."""
    cdp = _WATCHED.get(page)
    if cdp is None:
        return None
    answer: dict[str, object] = {}
    try:
        with anyio.move_on_after(READ_TIMEOUT_S):
            answer = await isolated_eval(cdp, _READ, PERF_WORLD)
    except PlaywrightError:
        return None  # the page went away
    result = answer.get("result")
    text = result.get("value") if isinstance(result, dict) else None
    raw = json.loads(text) if isinstance(text, str) else None
    if not isinstance(raw, dict):
        return None
    return total_blocking(_durations(raw))


async def main_thread_blocked(page: Page, during: str) -> str:
    """Why the page's main thread is blocked by a script of its own (stopped here), or ''
    when it answers (or when the renderer answers nothing: not the page's doing)."""
    cdp = _WATCHED.get(page)
    if cdp is None:
        return ""
    try:
        with anyio.move_on_after(BLOCKED_AFTER_S):
            await cdp.send("Runtime.evaluate", {"expression": "0"})
            return ""
        with anyio.move_on_after(STOP_TIMEOUT_S):
            await cdp.send("Runtime.terminateExecution")
            return (
                f"the page's main thread is blocked: a script ran {during} and did not yield"
                f" for {BLOCKED_AFTER_S:.0f} s more (stopped by the verifier); the state"
                " could not be measured"
            )
    except PlaywrightError:
        return ""  # answered with an error (no context yet, a navigation): not blocked
    return ""
