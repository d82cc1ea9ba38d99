"""Load and validate ``tasks/<id>/``: schema errors and cross-references, all at once."""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import msgspec

from ._base import NAMED_VIEWPORTS, Viewport
from ._canary import canary_problems
from ._ids import SAFE_ID_RULE, is_safe_id, shown, terminal_safe
from ._schema import schema_problems
from ._types import GATES, RUN_HEALTH_GATES, STATE_HEALTH_GATES, Contract

_MSGSPEC_ERROR = re.compile(r"^(?P<msg>.*?)(?: - at `\$(?P<path>[^`]*)`)?$")


class ContractError(Exception):
    """A task package is invalid; `problems` lists every problem found, one line each
    (made terminal-safe here: a hostile file name or value cannot add lines or escapes)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = [terminal_safe(p) for p in problems]
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True, slots=True)
class TaskPackage:
    """A loaded task: its directory, contract and contract hash."""

    root: Path
    contract: Contract
    contract_hash: str

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    def reference_patch(self, unit_id: str) -> Path:
        return _inside(self.root, "reference", unit_id, ".patch")

    def negative_patch(self, name: str) -> Path:
        return _inside(self.root, "negatives", name, ".patch")

    @property
    def evidence(self) -> Path:
        return self.root / "evidence"


def _inside(root: Path, folder: str, name: str, suffix: str) -> Path:
    """`root/folder/<name><suffix>` for a safe id `name`, else a `ContractError` (the
    loader refused such ids already: this is the last line, for names from elsewhere)."""
    if not is_safe_id(name):
        raise ContractError([f"{root}: {folder}/: expected {SAFE_ID_RULE}, got {shown(name)}"])
    return root / folder / f"{name}{suffix}"


def _key_path(raw: str) -> str:
    # msgspec writes `$.states[0].viewport`; we print `states[0].viewport`.
    return raw.lstrip(".") or "(top level)"


def located_error(exc: msgspec.ValidationError, where: str) -> str:
    """`where:key.path: message` from a msgspec validation error (shared with bench.toml)."""
    m = _MSGSPEC_ERROR.match(str(exc))
    assert m is not None
    msg = m["msg"][0].lower() + m["msg"][1:] if m["msg"] else "invalid"
    return f"{where}:{_key_path(m['path'] or '')}: {msg}"


def decode_contract(text: str, where: str) -> Contract:
    """Parse and type-check one ``task.toml`` text; `where` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ContractError([f"{where}: invalid TOML: {exc}"]) from exc
    try:
        return msgspec.convert(data, Contract)
    except msgspec.ValidationError as exc:
        # Every problem at once, each with the allowed values (the first error if the
        # field-by-field pass finds nothing, which would be a bug of that pass).
        problems = schema_problems(data, Contract, where) or [located_error(exc, where)]
        raise ContractError(problems) from exc


def cross_reference_problems(c: Contract, root: Path, where: str) -> list[str]:
    """Every unsafe id, dangling name, cycle or missing file in a decoded contract (with
    an unsafe id, only those: no path is built from it)."""
    p = _Problems(where)
    _id_problems(p, c)
    if p.problems:
        return p.problems
    p.dupes("states", [s.id for s in c.states])
    p.dupes("checks", [k.id for k in c.checks])
    p.dupes("units", [u.id for u in c.units])
    _state_problems(p, c)
    _check_problems(p, c)
    _unit_problems(p, c, root)
    _package_problems(p, c, root)
    return p.problems


@dataclass
class _Problems:
    where: str  # the contract's file, first in every problem
    problems: list[str] = field(default_factory=list)

    def bad(self, path: str, expected: str, got: object) -> None:
        self.problems.append(f"{self.where}:{path}: expected {expected}, got {shown(got)}")

    def safe(self, path: str, value: str | None) -> None:
        if value is not None and not is_safe_id(value):
            self.bad(path, SAFE_ID_RULE, value)

    def dupes(self, kind: str, ids: list[str]) -> None:
        seen: set[str] = set()
        for i, x in enumerate(ids):
            if x in seen:
                self.bad(f"{kind}[{i}].id", f"a unique {kind[:-1]} id", x)
            seen.add(x)


def _id_problems(p: _Problems, c: Contract) -> None:
    """Every id of the package, and every reference to one, against `SAFE_ID`."""
    p.safe("id", c.id)
    p.safe("stack", c.stack)
    p.safe("twin_of", c.twin_of)
    for i, s in enumerate(c.states):
        p.safe(f"states[{i}].id", s.id)
        p.safe(f"states[{i}].from", s.from_)
    for i, k in enumerate(c.checks):
        p.safe(f"checks[{i}].id", k.id)
        p.safe(f"checks[{i}].state", k.state)
        p.safe(f"checks[{i}].changed_from", k.changed_from)
    for i, u in enumerate(c.units):
        p.safe(f"units[{i}].id", u.id)
        for j, cid in enumerate(u.checks):
            p.safe(f"units[{i}].checks[{j}]", cid)
    for i, n in enumerate(c.negatives):
        p.safe(f"negatives[{i}].name", n.name)
        p.safe(f"negatives[{i}].after_unit", n.after_unit or None)


def _state_problems(p: _Problems, c: Contract) -> None:
    states = {s.id for s in c.states}
    for i, s in enumerate(c.states):
        if isinstance(s.viewport, str) and s.viewport not in NAMED_VIEWPORTS:
            p.bad(
                f"states[{i}].viewport", f"one of {sorted(NAMED_VIEWPORTS)} or a table", s.viewport
            )
        if isinstance(s.viewport, Viewport) and (s.viewport.width < 1 or s.viewport.height < 1):
            p.bad(f"states[{i}].viewport", "positive width and height", s.viewport)
        if s.status is not None and not 100 <= s.status <= 599:
            p.bad(f"states[{i}].status", "an HTTP status from 100 to 599", s.status)
        if not s.route.startswith("/"):
            p.bad(f"states[{i}].route", "a path starting with '/'", s.route)
        if s.from_ is not None and s.from_ not in states:
            p.bad(f"states[{i}].from", "a known state id", s.from_)
    # `from` cycles: follow each chain, bounded by the number of states.
    by_id = {s.id: s for s in c.states}
    for i, s in enumerate(c.states):
        seen: list[str] = [s.id]
        cur = s.from_
        while cur is not None and cur in by_id:
            if cur in seen:
                p.bad(f"states[{i}].from", "no cycle", " -> ".join([*seen, cur]))
                break
            seen.append(cur)
            cur = by_id[cur].from_


def _check_problems(p: _Problems, c: Contract) -> None:
    states = {s.id for s in c.states}
    for i, k in enumerate(c.checks):
        if k.gate in STATE_HEALTH_GATES | RUN_HEALTH_GATES:
            p.bad(f"checks[{i}].gate", "an authored gate (health gates are automatic)", k.gate)
        if k.state not in states:
            p.bad(f"checks[{i}].state", "a known state id", k.state)
        if k.changed_from is not None and k.changed_from not in states:
            p.bad(f"checks[{i}].changed_from", "a known state id", k.changed_from)
        if not k.describe.strip():
            p.bad(f"checks[{i}].describe", "a non-empty sentence", k.describe)
        for name in ("pattern", "regex"):
            pattern = getattr(k.assert_, name, None)
            if isinstance(pattern, str):
                try:
                    re.compile(pattern)
                except re.error as exc:
                    p.bad(f"checks[{i}].assert.{name}", f"a Python regex ({exc})", pattern)


def _unit_problems(p: _Problems, c: Contract, root: Path) -> None:
    known_checks = {k.id for k in c.checks}
    owner: dict[str, str] = {}
    for i, u in enumerate(c.units):
        if not u.checks:
            p.bad(f"units[{i}].checks", "at least one check id", [])
        for j, cid in enumerate(u.checks):
            if cid not in known_checks:
                p.bad(f"units[{i}].checks[{j}]", "a known check id", cid)
            elif cid in owner and u.kind == "stage":
                p.bad(f"units[{i}].checks[{j}]", f"a check not owned by unit {owner[cid]!r}", cid)
            owner.setdefault(cid, u.id)
        if not _inside(root, "reference", u.id, ".patch").is_file():
            p.bad(f"units[{i}].id", f"a patch file reference/{u.id}.patch", "missing file")
    if not c.units:
        p.bad("units", "at least one unit", [])
    if c.turns_per_unit < 1:
        p.bad("turns_per_unit", "a positive integer", c.turns_per_unit)


def _package_problems(p: _Problems, c: Contract, root: Path) -> None:
    """The negatives' patches, the twin, the directory and its repo/."""
    unit_ids = {u.id for u in c.units}
    for i, n in enumerate(c.negatives):
        if not _inside(root, "negatives", n.name, ".patch").is_file():
            p.bad(f"negatives[{i}].name", f"a patch file negatives/{n.name}.patch", "missing file")
        if n.after_unit and n.after_unit not in unit_ids:
            p.bad(f"negatives[{i}].after_unit", "a known unit id or ''", n.after_unit)
        for j, g in enumerate(n.expect_fail):
            if g not in GATES:
                p.bad(f"negatives[{i}].expect_fail[{j}]", "a gate name", g)
    if c.twin_of is not None:
        if c.regime != "build":
            p.bad("twin_of", "only on a build task (a greenfield twin is regime build)", c.regime)
        if c.twin_of == c.id:
            p.bad("twin_of", "the id of another task", c.twin_of)
    if root.name != c.id:
        p.bad("id", f"the directory name {root.name!r}", c.id)
    if not (root / "repo").is_dir():
        p.problems.append(f"{p.where}: expected a repo/ directory beside task.toml, got none")


def _unit_kinds(c: Contract) -> str:
    stages = sum(u.kind == "stage" for u in c.units)
    reworks = len(c.units) - stages
    return f"{stages} stage{'s' * (stages != 1)} and {reworks} rework{'s' * (reworks != 1)}"


def twin_problems(c: Contract, where: str, suite: Mapping[str, Contract]) -> list[str]:
    """A greenfield twin against the suite it ships in (`suite`: id -> contract): its
    `twin_of` names a Change task of the suite with as many stages and as many reworks.
    `cross_reference_problems` checks what the twin's own package can say."""
    if c.twin_of is None:
        return []
    source = suite.get(c.twin_of)
    if source is None:
        return [f"{where}:twin_of: expected the id of a task in the suite, got {c.twin_of!r}"]
    if source.regime != "change":
        return [
            f"{where}:twin_of: expected a change task, got {c.twin_of!r} (regime {source.regime})"
        ]
    if _unit_kinds(source) != _unit_kinds(c):
        return [
            f"{where}:twin_of: expected a change task with {_unit_kinds(c)} like this twin, "
            f"got {c.twin_of!r} with {_unit_kinds(source)}"
        ]
    return []


# Contract fields added after contract hashes were first stored (manifest rows, baseline
# caches, recorded admissions). Each is hashed only when it differs from its default, so
# adding one left the hash of every existing task, and every row that carries it, as it was.
_HASHED_WHEN_SET: tuple[str, ...] = ("twin_of",)
_CHECK_HASHED_WHEN_SET: tuple[str, ...] = ("keyboard_exempt",)


def canonical_contract(contract: Contract) -> bytes:
    """The contract's bytes in its hash: JSON, fields in definition order, dict keys
    sorted (msgspec's deterministic order), the `_HASHED_WHEN_SET` fields only when set."""
    data = msgspec.to_builtins(contract, order="deterministic")
    assert isinstance(data, dict)
    for name in _HASHED_WHEN_SET:
        if data.get(name) is None:
            del data[name]
    for check in data["checks"]:
        for name in _CHECK_HASHED_WHEN_SET:
            if check.get(name) is None:
                del check[name]
    return msgspec.json.encode(data)


def contract_hash(root: Path, contract: Contract) -> str:
    """sha256 over the canonical contract and every file of the package, `evidence/`
    included: a re-captured render (or `env.json`) is a new contract (DESIGN §3)."""
    h = hashlib.sha256()
    h.update(canonical_contract(contract))
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("README") or "/node_modules/" in f"/{rel}":
            continue
        h.update(b"\0" + rel.encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def link_problems(root: Path, where: str) -> list[str]:
    """Links that would let grading read a file the contract hash does not cover: any
    link outside `repo/` (task.toml, reference/, negatives/, evidence/ are plain files)
    and any link in `repo/` resolving outside the package (`node_modules/` not walked)."""
    problems = []
    top = root.resolve()
    for folder, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if d != "node_modules"]
        for name in [*dirs, *files]:
            path = Path(folder, name)
            if not path.is_symlink():
                continue
            rel = path.relative_to(top)
            if rel.parts[0] != "repo":
                problems.append(f"{where}: {rel}: expected a file or folder, got a link")
            elif not path.resolve().is_relative_to(top):
                problems.append(f"{where}: {rel}: expected a link inside the package, got one out")
    return problems


def load_task(root: Path) -> TaskPackage:
    """Load one task directory or raise `ContractError` listing every problem."""
    root = root.resolve()  # cells change directories; the package path must not depend on cwd
    toml = root / "task.toml"
    where = str(toml)
    if not toml.is_file():
        raise ContractError([f"{where}: expected a task.toml file, got none"])
    if problems := link_problems(root, where):
        raise ContractError(problems)  # before any file of the package is read
    contract = decode_contract(toml.read_text(encoding="utf-8"), where)
    problems = cross_reference_problems(contract, root, where)
    problems += canary_problems(root, where)
    if problems:
        raise ContractError(problems)
    return TaskPackage(root=root, contract=contract, contract_hash=contract_hash(root, contract))


def discover_tasks(tasks_dir: Path) -> list[Path]:
    return sorted(p.parent for p in tasks_dir.glob("*/task.toml"))
