"""The main thread as the page's own renderer timed it: how long it was held, and a page
that never yields.

**Blocking** (`read_figures`, #53). A script is registered in every document of the
page before any of the site's scripts runs: CDP `Page.addScriptToEvaluateOnNewDocument`
with a `worldName`, so it lives in an isolated world of its own (`PERF_WORLD`) where the
site can neither see, stop nor forge it; it is read back from the same world
(`Page.createIsolatedWorld` with that name returns the world the script ran in). The
script beats every `BEAT_MS` on that world's own timer (the site's `setTimeout` and its
clock are not these). A beat can only run when the main thread is free, so a beat that
runs late measures, from the renderer's own timeline, how long the thread was held: a
long task. The state reports the document it ends on (a reload or a `goto` action starts
a new one): the *total blocking time*, the sum of each lateness over 50 ms (Lighthouse's
TBT over the whole state, since a beat can be up to one period late before a task
starts), how many there were, and the longest.

*Why not the Long Tasks API.* A `PerformanceObserver` for `longtask` entries, registered
the same way (or in the main world), missed the 1.5 s loop of a fixture page in about
half the states here (Chromium 156, a loaded 2-core machine: no entry at all, while the
CDP `Performance` metrics showed 1.5 s of script). A beat cannot miss a held thread.

*Wall time, not thread time.* Lateness is wall time on the monotonic clock: what a user
waits through. That is what holds under host load for a page that blocks on purpose: a
busy loop on `performance.now()` or `Date.now()` is defined by wall time and lasts its
1.5 s whatever share of a CPU it gets, while its CPU time shrinks (CDP's `ThreadTime`
read 0.14-0.82 s for that 1.5 s loop under this machine's load): a rule on CPU time would
let it pass. The other way round, CPU steal delays beats and stretches real work by the
share it lost; the rule (`_a11y/_perf_gate.py`) therefore counts only lateness past 50 ms,
compares with the base at the same state and allows 1000 ms more: for load alone to fail
a page, its state must be held a second longer than the base's, which a page whose own
work is tens of ms never is (the fixtures' R0 read 0 ms at load average 17), and
admission grades R0, the reference and the negatives under the same load.

*Held, not starved* (session 20). A beat is also late when the host does not schedule
the renderer at all: at load average 20-37 on 2 cores, pages with no script at all read
500-1500 ms of "blocking" at capture and flipped `perf-main-thread@S` between the runs of
an admission. So the figure is also bounded by the renderer's own account of its main
thread's work: CDP `Performance.getMetrics` `TaskDuration`, the wall time the thread
spent running tasks, read with the beats. The counter is the renderer process's: a
navigation from a warm tab's `about:blank` to the site starts a new process, so it
counts the state's documents (a process kept from earlier work only makes it larger,
which gives back the beats' figure: never less than the state's own work). A thread
that is idle while its process waits for a CPU runs no task, so starvation adds
nothing to it (a renderer stopped by SIGSTOP for 1.5 s on an idle page: 0.03 s), while
a page that holds its thread for 1.5 s by a busy loop adds 1.5 s however little CPU it
gets. The state's blocking, longest task and count of late beats are each at most that
busy time: what the beats say the thread was held for and what the renderer says it was
working, whichever is less. Load can still stretch a task the page really runs by the
share of CPU it lost, which the 1000 ms allowance over the base absorbs.

*Stretched, not held* (session 26). Host load stretches the work a page really runs:
at load average 20 on 2 cores a renderer gets about a tenth of a core, so 100 ms of
layout and paint can take a second of wall time, and the thread's `TaskDuration` says
so. A static gallery page of the suite read over 1000 ms of blocking in 1 admission run
of 3 (base 0 ms). Load only ever adds: a state that reads over `BLOCKING_ALLOWANCE_MS`
(the least that can fail the rule) is replayed again, up to `REMEASURES` times, each in a
fresh or reset context (its storage cleared, so a page that blocks on a first visit
blocks again), and keeps the least figure; its checks and everything else are the first
replay's. A page that blocks on purpose blocks at every replay (a busy loop on a clock
lasts its 1.5 s whatever the load) and fails as before. A page that blocks only now and
then (1 load in 3) passes. Unloaded, no correct page reads near a second, so nothing is
replayed.

**Weight** (`read_figures`, #53). The same world keeps two `PerformanceObserver`s
(`navigation`, `resource`, buffered) and sums the `transferSize` of the document and of
every entry of its origin: the bytes the state's document brought over the wire (the
browser's HTTP cache is off in the verifier's contexts, so every state pays for all of
it, as a first visit does). The entries are the browser's own; an observer in this world
gets each one even when the site clears its timing buffer or fills it (250 entries).

**Layout shift** (`read_figures`, #53). A third observer there (`layout-shift`,
buffered) sums the document's unexpected layout shifts as Core Web Vitals' CLS does: a
shift within 500 ms of an input (`hadRecentInput`: the replay's clicks and keys are
trusted input) is the user's doing and does not count; the others form session windows,
and the largest window's sum is the figure. It is read as the state settles, before any
check, menu trial or focus walk moves the page: it counts the shifts the page made while
it loaded and settled, which includes what the settle waits for (a timer due within its
horizon, a request's answer and its render, `_settle.py`). A shift a later timer
makes is not seen, as the checks do not see its content. Only content already painted
can shift, so what moves depends partly on when it arrived: an image without a size
shifts the text below it if it lands after the first paint. The rule (`_a11y/_perf_gate.py`)
therefore allows a generous margin over the base.

**A page that never yields** (`main_thread_blocked`). A script that never returns
(`while (true) {}`) stops every call that needs the page's main thread: `page.goto`
waits for a load event that never comes, screenshots and probes time out, and before
#53 each such timeout read as a loaded host (a patient replay, a harness retry). After
a navigation or action timed out, and after every settle, the page's main thread is
probed on a CDP session made before the state's first navigation (attaching one to a
stuck renderer would hang): `Runtime.evaluate` runs on the main thread, so it answers
at once between tasks, host load or not (a loaded host delays it by scheduling
latency, milliseconds to a second). No answer within `BLOCKED_AFTER_S`, on top of the
timeout that already expired, is the evidence: the main thread was held the whole time.
`Runtime.terminateExecution` is then sent; the renderer serves it from its IO thread by
interrupting the running script, without waiting for the main thread. It answering
shows the renderer process is alive (a process starved of all CPU would answer neither,
and keeps the old timeout path: a patient replay); it does not by itself prove that a
script was running, so a host that starved only the main thread for 10 s would be
misread as a blocked page (not seen in these runs, load average ~17). The script is stopped,
and the state ends with that message (`_state.py`): the solver's page, graded,
never retried. What it leaves behind (a timer that blocks again) is bounded by the warm
tab's reset (20 s, then the context is discarded) or the fresh context's close.
"""

from __future__ import annotations

import json
from typing import NamedTuple
from weakref import WeakKeyDictionary

import anyio
from playwright.async_api import CDPSession, Page
from playwright.async_api import Error as PlaywrightError

from ...records import MainThread, PageWeight
from .._browser import isolated_eval, page_session

PERF_WORLD = "pwb-perf"
LONG_TASK_MS = 50.0
# The rule's allowance over its base (`_a11y/_perf_gate.py`): a state's blocking over it
# is the least that can fail the rule (over a base of nothing).
BLOCKING_ALLOWANCE_MS = 1000.0
# *Stretched, not held* (session 26): a state whose blocking reads over the allowance is
# replayed again, in a fresh or reset context, up to this many times, and keeps the
# least (`_verify/_run.py`).
REMEASURES = 2
BEAT_MS = 50
# How long the main thread may leave a probe unanswered, after a timeout already
# expired, before it is blocked; how long the renderer may take to stop the script.
BLOCKED_AFTER_S = 10.0
STOP_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 10.0

# Runs in PERF_WORLD at each new document, before the site's scripts: a beat every
# `BEAT_MS` on the world's own timer; a beat that runs late ran late because the main
# thread was held, for about that long. Only lateness past `LONG_TASK_MS` counts
# (`total_blocking`), as only a long task's time over 50 ms counts in TBT; a hidden
# page's throttled timers are not the page's doing, so a hidden document's beats do not
# count. The last entry is how late the next beat already is when the figure is read.
_OBSERVER = """(() => {
  const BEAT = BEAT_MS;
  const late = [];
  let last = performance.now();
  const beat = () => {
    const now = performance.now();
    if (document.visibilityState === 'visible') late.push(now - last - BEAT);
    last = now;
    setTimeout(beat, BEAT);
  };
  setTimeout(beat, BEAT);
  globalThis.__pwbMainThread = () => late.concat([performance.now() - last - BEAT]);
  // The document's weight: every resource timing entry of its own origin (and the
  // document's), as the browser makes them. An observer here gets each entry whatever
  // the site does to its own timing buffer (cleared, or full at 250 entries).
  let bytes = 0, requests = 0;
  const add = (entries) => {
    for (const e of entries) {
      if (e.entryType === 'resource' && !e.name.startsWith(location.origin + '/')) continue;
      bytes += e.transferSize || 0;
      requests += 1;
    }
  };
  const watch = [];
  for (const type of ['navigation', 'resource']) {
    try {
      const o = new PerformanceObserver((list) => add(list.getEntries()));
      o.observe({type, buffered: true});
      watch.push(o);
    } catch (e) {}
  }
  globalThis.__pwbWeight = () => {
    for (const o of watch) add(o.takeRecords());
    return [bytes, requests];
  };
  // Layout shifts as Core Web Vitals count them: shifts within 500 ms of an input are
  // the user's doing (hadRecentInput); the rest make session windows (a shift within
  // 1 s of the last and 5 s of the first joins its window), and the largest window's
  // sum is the figure.
  let cls = 0, win = 0, first = -1e9, prev = -1e9;
  const shifted = (entries) => {
    for (const e of entries) {
      if (e.hadRecentInput) continue;
      if (e.startTime - prev < 1000 && e.startTime - first < 5000) win += e.value;
      else { win = e.value; first = e.startTime; }
      prev = e.startTime;
      cls = Math.max(cls, win);
    }
  };
  let shifts = null;
  try {
    shifts = new PerformanceObserver((list) => shifted(list.getEntries()));
    shifts.observe({type: 'layout-shift', buffered: true});
  } catch (e) {}
  globalThis.__pwbShift = () => {
    if (shifts) shifted(shifts.takeRecords());
    return cls;
  };
})()""".replace("BEAT_MS", str(BEAT_MS))
_READ = """JSON.stringify(globalThis.__pwbMainThread
  ? [globalThis.__pwbMainThread(), globalThis.__pwbWeight(), globalThis.__pwbShift()]
  : null)"""


class Figures(NamedTuple):
    """A state's document's figures (`read_figures`); each None when not read."""

    main_thread: MainThread | None = None
    weight: PageWeight | None = None
    layout_shift: float | None = None


# The session each watched page was prepared with; it goes with its page.
_WATCHED: WeakKeyDictionary[Page, CDPSession] = WeakKeyDictionary()


async def watch_main_thread(page: Page) -> None:
    """Once per page, before its first navigation: the long-task observer in every new
    document, and the session `main_thread_blocked` probes through."""
    # The page's one session for isolated awaits (`_browser/_world.py`); kept here too, as a
    # failed await there drops it from its cache, and the probe needs it made now.
    cdp = await page_session(page)
    # Without the Page domain enabled on this session its new-document scripts never run.
    await cdp.send("Page.enable")
    await cdp.send(
        "Page.addScriptToEvaluateOnNewDocument", {"source": _OBSERVER, "worldName": PERF_WORLD}
    )
    await cdp.send("Performance.enable")
    _WATCHED[page] = cdp


async def _task_seconds(cdp: CDPSession) -> float | None:
    """The renderer's main thread's time in tasks so far (`TaskDuration`, s), if read."""
    try:
        with anyio.move_on_after(READ_TIMEOUT_S):
            got = await cdp.send("Performance.getMetrics")
            for metric in got.get("metrics", []):
                if metric.get("name") == "TaskDuration":
                    return float(metric["value"])
    except PlaywrightError:
        pass
    return None


def total_blocking(late: list[float], busy_ms: float | None = None) -> MainThread:
    """The figures of a document's beats, each one's lateness in ms (`_OBSERVER`), each
    at most `busy_ms`, the renderer's main thread's time in tasks (None: unknown)."""
    held = [d for d in late if d > LONG_TASK_MS]
    blocking = sum(d - LONG_TASK_MS for d in held)
    longest = max(held, default=0.0)
    count = len(held)
    if busy_ms is not None:
        blocking, longest = min(blocking, busy_ms), min(longest, busy_ms)
        count = min(count, int(busy_ms // LONG_TASK_MS))
    return MainThread(
        blocking_ms=round(blocking, 1), longest_ms=round(longest, 1), long_tasks=count
    )


async def read_figures(page: Page) -> Figures:
    """The state's document's long tasks, weight and layout shift so far."""
    cdp = _WATCHED.get(page)
    if cdp is None:
        return Figures()
    answer: dict[str, object] = {}
    try:
        with anyio.move_on_after(READ_TIMEOUT_S):
            answer = await isolated_eval(cdp, _READ, PERF_WORLD)
    except PlaywrightError:
        return Figures()  # the page went away
    result = answer.get("result")
    text = result.get("value") if isinstance(result, dict) else None
    got = json.loads(text) if isinstance(text, str) else None
    if not (isinstance(got, list) and len(got) == 3 and isinstance(got[0], list)):
        return Figures()
    late, (size, count), shift = got
    busy = await _task_seconds(cdp)
    return Figures(
        main_thread=total_blocking([float(d) for d in late], None if busy is None else busy * 1000),
        weight=PageWeight(bytes=int(size), requests=int(count)),
        layout_shift=round(float(shift), 4),
    )


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
