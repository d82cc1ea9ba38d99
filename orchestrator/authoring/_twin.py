"""`twin`: a greenfield twin derived from a Change task (AUTHORING.md, "Greenfield twins").

An author used to derive a twin by hand: copy the source's stylesheet, images and the
stack's config into a starter with a placeholder home page, make the patch from that
starter to the source's R0 with its first unit applied, copy the later units' patches,
and rewrite `task.toml` (id, title, regime, capability, facet, `twin_of`, no negatives).
`derive_twin` does all of that in a temporary folder and moves the package into place only
when the loader accepts it and the reference ends on exactly the source's final tree.

After `capture`, `settle_twin` moves into unit 1 the source's preservation checks the
starter fails (judged by the caller: `lint`'s reading of the evidence), by editing the
`checks` of unit 1 in `task.toml` and nothing else.

`task.toml` is rewritten as text (the author's comments and layout stay), and every
rewrite is checked: the text must decode to exactly the contract intended, else nothing
is written.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import msgspec

from ..contract import (
    CANARY_LINE,
    Contract,
    ContractError,
    TaskPackage,
    decode_contract,
    load_task,
    twin_problems,
)
from ._new import _slug
from ._scratch import IGNORED, ScratchError, _git
from ._starter import STACK_FILES, _made, _product
from ._toml_lines import _array, _rewrite, _set_key, _set_request, _string

REQUEST_TODO = (
    "TODO(twin): first ask for the site {source}'s R0 is (every page, its copy and "
    "pictures, the navigation; the starter's styles used as they are), then end with "
    "{source}'s unit-1 request, kept below:"
)
NEGATIVES_NOTE = (
    "# ------------------------------------------------------------------ negatives\n"
    "# None copied from {source}: a twin's negatives are its own (tasks/AUTHORING.md,\n"
    '# "Greenfield twins"); make them with `python -m orchestrator negative {id} NAME`.\n'
)


# What `--keep` never takes from the source's repo/ (what `IGNORED` leaves out of a copy).
BUILT = frozenset({".git", "node_modules", "dist", "build", ".astro", "_site"})


class TwinError(Exception):
    """The author's input is wrong, or the twin could not be derived: one line."""


@dataclass(frozen=True, slots=True)
class DerivedTwin:
    root: Path
    starter: tuple[str, ...]  # the starter's files, relative to repo/
    made: tuple[str, ...]  # those the kit wrote (the placeholder page, a config)
    allowed_added: tuple[str, ...]  # paths added to allowed_paths (u1 must write them)


@dataclass(frozen=True, slots=True)
class Settled:
    moved: tuple[str, ...]  # into unit 1's checks, in the contract's order
    passing: tuple[str, ...]  # the starter passes them: preservation checks still
    undecided: tuple[str, ...]  # the evidence cannot say


def _files(tree: Path) -> dict[str, bytes]:
    """Every file under `tree` but what a build or git leaves (`BUILT`), by path."""
    return {
        p.relative_to(tree).as_posix(): p.read_bytes()
        for p in sorted(tree.rglob("*"))
        if p.is_file() and not BUILT & set(p.relative_to(tree).parts)
    }


def _kept(repo: Path, patterns: Iterable[str]) -> list[str]:
    """The source R0's files the patterns name (a folder: its files), relative to repo/."""
    out: set[str] = set()
    for pattern in patterns:
        if not pattern or Path(pattern).is_absolute() or ".." in Path(pattern).parts:
            raise TwinError(f"--keep {pattern!r}: expected a path or glob inside repo/")
        hits = [p for p in repo.glob(pattern) if not BUILT & set(p.relative_to(repo).parts)]
        files = [f for p in hits for f in ([p] if p.is_file() else p.rglob("*")) if f.is_file()]
        files = [f for f in files if not BUILT & set(f.relative_to(repo).parts)]
        if not files:
            raise TwinError(f"--keep {pattern!r}: matches no file of {repo}")
        out |= {f.relative_to(repo).as_posix() for f in files}
    return sorted(out)


def _diff(starter: Path, target: Path, work: Path) -> bytes:
    """`git diff` from the tree `starter` to the tree `target`, new files and binaries
    included (`git apply` takes it back on `starter`); what a build leaves is no part."""
    shutil.copytree(starter, work, ignore=IGNORED)
    _git(work, "init", "-q")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "starter", "--allow-empty")
    for p in list(work.iterdir()):
        if p.name != ".git":
            shutil.rmtree(p) if p.is_dir() and not p.is_symlink() else p.unlink()
    shutil.copytree(target, work, dirs_exist_ok=True, ignore=IGNORED)
    _git(work, "add", "-A")
    return _git(work, "diff", "--cached", "--binary", "HEAD")


def _final(task: TaskPackage, patches: list[Path], tree: Path) -> dict[str, bytes]:
    """The files of `task`'s R0 with `patches` applied in order, built in `tree`."""
    shutil.copytree(task.repo, tree, ignore=IGNORED)
    _git(tree, "init", "-q")
    for patch in patches:
        _git(tree, "apply", "--whitespace=nowarn", str(patch.resolve()))
    return _files(tree)


def _first_patch(source: TaskPackage, starter: Path, tmp: Path) -> tuple[bytes, list[str]]:
    """Unit 1's reference of a twin: the diff from `starter` to the source's R0 with its
    unit 1 applied, and the paths it changes."""
    first = tmp / "first"
    shutil.rmtree(first, ignore_errors=True)
    _final(source, [source.reference_patch(source.contract.units[0].id)], first)
    shutil.rmtree(tmp / "diff", ignore_errors=True)
    diff = _diff(starter, first, tmp / "diff")
    old, new = _files(starter), _files(first)
    return diff, [r for r in sorted(set(old) | set(new)) if old.get(r) != new.get(r)]


def _ends_on_source(
    twin: TaskPackage, source: TaskPackage, patches: dict[str, bytes], tmp: Path
) -> None:
    """The twin's starter with its reference patches (`patches` by unit id in place of
    its files) ends on exactly the source's final tree, else a `TwinError`."""
    want = _final(
        source, [source.reference_patch(u.id) for u in source.contract.units], tmp / "want"
    )
    tree = tmp / "got"
    shutil.copytree(twin.repo, tree, ignore=IGNORED)
    _git(tree, "init", "-q")
    for u in twin.contract.units:
        data = patches.get(u.id)
        if data is None:
            data = twin.reference_patch(u.id).read_bytes()
        _git(tree, "apply", "--whitespace=nowarn", "-", stdin=data)
    got = _files(tree)
    if got != want:
        odd = sorted(r for r in set(got) | set(want) if got.get(r) != want.get(r))
        raise TwinError(
            f"{twin.root}: the reference does not end on {source.contract.id}'s tree: {odd}"
        )


# ---------------------------------------------------------------- task.toml as text


def _checked(text: str, where: str, want: Contract) -> str:
    """`text` if it decodes to exactly `want`, else a `TwinError` (nothing is written)."""
    try:
        got = decode_contract(text, where)
    except ContractError as exc:
        raise TwinError(
            f"{where}: the rewritten task.toml does not load: {exc.problems[0]}"
        ) from exc
    if got != want:
        diff = [f for f in want.__struct_fields__ if getattr(got, f) != getattr(want, f)]
        raise TwinError(f"{where}: could not rewrite task.toml faithfully (fields {diff})")
    return text


def _twin_toml(
    source: TaskPackage, twin_id: str, title: str, allowed: tuple[str, ...], where: str
) -> str:
    c = source.contract
    u1 = c.units[0]
    request = REQUEST_TODO.format(source=c.id) + "\n\n" + u1.request
    want = msgspec.structs.replace(
        c,
        id=twin_id,
        title=title,
        twin_of=c.id,
        regime="build",
        capability="build",
        facet="construction",
        allowed_paths=allowed,
        negatives=(),
        units=(msgspec.structs.replace(u1, request=request), *c.units[1:]),
    )

    def edit(blocks: list[tuple[str, list[str]]]) -> None:
        name, top = blocks[0]
        top = _set_key(top, "id", _string(twin_id))
        top = _set_key(top, "title", _string(title), after="id")
        top = _set_key(top, "twin_of", _string(c.id), after="title")
        for key, value in (("regime", "build"), ("capability", "build"), ("facet", "construction")):
            top = _set_key(top, key, _string(value))
        if allowed != c.allowed_paths:
            top = _set_key(top, "allowed_paths", "[" + ", ".join(map(_string, allowed)) + "]")
        blocks[0] = (name, top)
        first = next(i for i, (n, _) in enumerate(blocks) if n == "units")
        blocks[first] = ("units", _set_request(blocks[first][1], request))
        kept = [b for b in blocks if b[0] != "negatives"]
        blocks[:] = kept
        blocks.append(("", ["\n", NEGATIVES_NOTE.format(source=c.id, id=twin_id)]))

    text = _rewrite((source.root / "task.toml").read_text(encoding="utf-8"), edit)
    return _checked(text, where, want)


def _title(source: Contract) -> str:
    name, _, what = source.title.partition(":")
    if not what.strip():
        return f"{_product(source.title, source.id)}: build the site, then TODO"
    return f"{name.strip()}: build the site, then {what.strip()}"


# ---------------------------------------------------------------- the two steps


def derive_twin(
    source: TaskPackage,
    root: Path,
    keep: list[str],
    covered: Callable[[str, tuple[str, ...]], bool],
) -> DerivedTwin:
    """The twin of `source` written at `root` (a new folder named after its id): starter,
    reference, task.toml, README. `covered(path, allowed_paths)`: whether the scope gate
    lets a solver write `path` (paths unit 1 must write are added to allowed_paths)."""
    c = source.contract
    try:
        twin_id = _slug(root.name)
    except ValueError as exc:
        raise TwinError(f"--id: {exc}") from exc
    if c.regime != "change":
        raise TwinError(f"{source.root}: a {c.regime} task: a twin derives from a change task")
    if root.exists():
        raise TwinError(f"{root}: already exists; `twin` never overwrites a package")
    kept = _kept(source.repo, keep)
    for rel in STACK_FILES.get(c.stack, ()):
        if (source.repo / rel).is_file() and rel not in kept:
            kept.append(rel)
    kept.sort()
    made = _made(source, kept)
    units = [u.id for u in c.units]
    root.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{twin_id}-", dir=root.parent))
    try:
        pkg = tmp / twin_id
        repo = pkg / "repo"
        for rel in kept:
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source.repo / rel, repo / rel)
        for rel, text in made.items():
            (repo / rel).parent.mkdir(parents=True, exist_ok=True)
            (repo / rel).write_text(text, encoding="utf-8")
        (pkg / "reference").mkdir()
        (pkg / "negatives").mkdir()
        diff, changed = _first_patch(source, repo, tmp)
        (pkg / "reference" / f"{units[0]}.patch").write_bytes(CANARY_LINE.encode() + diff)
        for unit in units[1:]:
            shutil.copyfile(source.reference_patch(unit), pkg / "reference" / f"{unit}.patch")
        added = tuple(r for r in changed if not covered(r, c.allowed_paths))
        where = str(root / "task.toml")
        toml = _twin_toml(source, twin_id, _title(c), (*c.allowed_paths, *added), where)
        (pkg / "task.toml").write_text(toml, encoding="utf-8")
        (pkg / "README.md").write_text(
            f"# {twin_id}\n\nThe greenfield twin of `{c.id}`: the same end state, built from a "
            "starter (the designer's stylesheet, pictures and a placeholder page).\n\n"
            f"Derived by `python -m orchestrator twin {c.id}`; TODO: say what unit 1 asks "
            "the solver to build.\n",
            encoding="utf-8",
        )
        twin = load_task(pkg)
        if problems := twin_problems(twin.contract, where, {c.id: c}):
            raise TwinError(problems[0])
        _ends_on_source(twin, source, {}, tmp)
        shutil.move(str(pkg), str(root))
    except (ScratchError, ContractError) as exc:
        raise TwinError(str(exc).splitlines()[0]) from exc
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return DerivedTwin(root, tuple(kept + sorted(made)), tuple(sorted(made)), added)


def repatch_twin(
    twin: TaskPackage, source: TaskPackage, covered: Callable[[str, tuple[str, ...]], bool]
) -> tuple[str, ...]:
    """Unit 1's reference made again from the twin's starter as it is now (the author
    edited repo/), checked to end on the source's final tree; the paths added to
    allowed_paths (unit 1 writes them) are returned."""
    c = twin.contract
    if c.twin_of != source.contract.id:
        raise TwinError(f"{twin.root}: not a greenfield twin of {source.contract.id}")
    u1 = c.units[0].id
    with tempfile.TemporaryDirectory(prefix="pwb-twin-") as name:
        tmp = Path(name)
        try:
            diff, changed = _first_patch(source, twin.repo, tmp)
            patch = CANARY_LINE.encode() + diff
            _ends_on_source(twin, source, {u1: patch}, tmp)
        except ScratchError as exc:
            raise TwinError(str(exc).splitlines()[0]) from exc
    added = tuple(r for r in changed if not covered(r, c.allowed_paths))
    path = twin.root / "task.toml"
    text = None
    if added:
        allowed = (*c.allowed_paths, *added)

        def edit(blocks: list[tuple[str, list[str]]]) -> None:
            value = "[" + ", ".join(map(_string, allowed)) + "]"
            blocks[0] = (blocks[0][0], _set_key(blocks[0][1], "allowed_paths", value))

        want = msgspec.structs.replace(c, allowed_paths=allowed)
        text = _checked(_rewrite(path.read_text(encoding="utf-8"), edit), str(path), want)
    target = twin.reference_patch(u1)
    partial = target.with_suffix(".patch.tmp")
    partial.write_bytes(patch)
    partial.replace(target)
    if text is not None:
        path.write_text(text, encoding="utf-8")
    return added


UNDECIDED = "undecided"  # `--move undecided`: every check the evidence cannot judge


def settle_twin(
    task: TaskPackage, judge: Callable[[str], bool | None], move: Iterable[str] = ()
) -> Settled:
    """Unit 1 takes the preservation checks the starter fails (`judge(check id)` False on
    its evidence) and those named in `move` (`UNDECIDED`: all those `judge` cannot say);
    `task.toml` is rewritten only if any moves."""
    c = task.contract
    if c.twin_of is None:
        raise TwinError(f"{task.root}: not a greenfield twin (no twin_of)")
    preserved = c.preservation_check_ids()
    named = set(move)
    if unknown := sorted(named - set(preserved) - {UNDECIDED}):
        raise TwinError(f"--move {unknown}: expected preservation checks of {c.id} or {UNDECIDED}")
    verdicts = {cid: judge(cid) for cid in preserved}
    if UNDECIDED in named:
        named |= {k for k in preserved if verdicts[k] is None}
    moved = tuple(k for k in preserved if verdicts[k] is False or k in named)
    passing = tuple(k for k in preserved if verdicts[k] is True and k not in named)
    undecided = tuple(k for k in preserved if verdicts[k] is None and k not in named)
    if moved:
        u1 = c.units[0]
        checks = (*u1.checks, *moved)
        want = msgspec.structs.replace(
            c, units=(msgspec.structs.replace(u1, checks=checks), *c.units[1:])
        )

        def edit(blocks: list[tuple[str, list[str]]]) -> None:
            first = next(i for i, (n, _) in enumerate(blocks) if n == "units")
            blocks[first] = ("units", _set_key(blocks[first][1], "checks", _array(checks)))

        path = task.root / "task.toml"
        text = _checked(_rewrite(path.read_text("utf-8"), edit), str(path), want)
        path.write_text(text, encoding="utf-8")
    return Settled(moved, passing, undecided)
