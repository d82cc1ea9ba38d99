"""The rules reuse rests on (`_cache.py`): which servers are static or request-scoped,
the view a URL has of a static server's tree, a job's signature, and an observation
that may be the machine's rather than the site's (never carried forward)."""

from __future__ import annotations

import hashlib
import posixpath
import re
from urllib.parse import unquote, urlsplit

from ...contract import Contract
from ...workspace import FileIndex
from .._core import StateObservation
from .._replay import HOST_NETWORK_FAULTS, StateJob

_STATIC_START = re.compile(r"python3? -m http\.server \$PORT( --bind 0\.0\.0\.0)?")
_UNHELD = frozenset({"excluded", "oversize", "deep", "emptydir", "link"})


class Uncertain(Exception):
    """The dependencies cannot be bounded: the state must replay."""


# PHP's built-in server (`php -S`) with opcache disabled: each request runs in a fresh
# interpreter and opens every script it includes (opcache would revalidate a cached
# script by `stat`, which the trace cannot see).
_REQUEST_SCOPED_START = re.compile(
    r"(exec\s+)?php\s(?=(.*\s)?-d\s*opcache\.enable=0(\s|$))"
    r"(?!.*opcache\.enable(_cli)?=(?!0(\s|$)))(?=(.*\s)?-S\s).*"
)


def request_scoped(contract: Contract) -> bool:
    """A server that keeps nothing in memory from one request to the next, so the files
    it opened for a state are all that state's replay depended on (with the tree's
    names and the server process)."""
    s = contract.serve
    return not s.install and not s.build and bool(_REQUEST_SCOPED_START.fullmatch(s.start.strip()))


def is_static(contract: Contract) -> bool:
    s = contract.serve
    return (
        contract.stack == "static"
        and not s.install
        and not s.build
        and _STATIC_START.fullmatch(s.start.strip()) is not None
    )


def _http_server_path(url: str) -> tuple[str, bool]:
    """The work-tree path `http.server` serves for `url` (its `translate_path`)."""
    path = urlsplit(url).path
    trailing = path.rstrip().endswith("/")
    path = posixpath.normpath(unquote(path, errors="surrogatepass"))
    words = [w for w in path.split("/") if w and w not in (".", "..")]
    return "/".join(words), trailing


def _held(index: FileIndex, rel: str) -> tuple[str, str] | None:
    """The index entry at `rel`; `Uncertain` when a prefix is a link or not held."""
    parts = rel.split("/") if rel else []
    for i in range(1, len(parts) + 1):
        entry = index.get("/".join(parts[:i]))
        if entry is not None and entry[0] in _UNHELD:
            raise Uncertain(f"/{rel} reaches a path whose bytes are not snapshotted")
        if entry is None:
            return None  # nothing there, so nothing below it either (a 404)
    return index.get(rel)


def static_view(index: FileIndex, url: str) -> str:
    """What `http.server` answers for `url`, as far as the work tree decides it."""
    rel, trailing = _http_server_path(url)
    if any(w.lower() == ".git" for w in rel.split("/")):
        raise Uncertain(f"/{rel} is inside .git")
    entry = _held(index, rel)
    if entry is None:
        return "absent"
    kind, blob = entry
    if kind != "dir":
        return f"{kind} {blob} {trailing}"
    pages = []
    for name in ("index.html", "index.htm"):
        sub = _held(index, f"{rel}/{name}" if rel else name)
        pages.append("-" if sub is None else f"{sub[0]} {sub[1]}")
    if pages == ["-", "-"]:
        raise Uncertain(f"/{rel} is a folder without an index page (a generated listing)")
    return f"dir {trailing} {' '.join(pages)}"


def index_digest(index: FileIndex) -> str:
    h = hashlib.sha256()
    for path in sorted(index):
        kind, blob = index[path]
        h.update(f"{path}\0{kind}\0{blob}\n".encode())
    return h.hexdigest()


def job_signature(job: StateJob) -> tuple[object, ...]:
    """Everything about a job, other than its checks and artifacts, that a replay uses."""
    return (
        job.state,
        job.actions,
        job.base_url,
        str(job.reference_dir),
        job.use_settle_selector,
        job.opts,
        job.operate,
    )


# The host faults `_replay/_transient.py` replays, and anything else the machine may have caused.
_TRANSIENT = (*HOST_NETWORK_FAULTS, "Timeout", "timed out", "could not evaluate", "browser error")


def _timing_dependent(obs: StateObservation) -> bool:
    """A state not reached, or a result that may be the machine's load rather than the
    site (a timeout, a host network change, a browser error): replayed every time, so
    a transient failure is never carried forward."""
    if obs.nav_error or obs.action_error:
        return True
    texts = (
        *obs.failed_requests,
        *obs.failed_assets,
        *obs.console_errors,
        *(o.observed for o in obs.outcomes.values()),
    )
    return any(t in text for text in texts for t in _TRANSIENT)
