"""`audit score`: the raters' verdicts against the harness's.

Ratings are a CSV `item,rating` (`pass` or `fail`; one rater per file) beside the
packet's `key.jsonl`. For the items rated, overall and per gate family (`completion`:
dom, text, interaction, a11y; `continuity`: the conservative continuity gates;
`visual`: `visual_regression`, in the broad continuity family only):

- Cohen's kappa between rater and harness (None when chance agreement is 1: every
  verdict of both is the same, kappa is undefined);
- false-pass rate: of the items the rater failed, the share the harness passed;
  false-fail rate: of the items the rater passed, the share the harness failed; each
  with a 95% Wilson interval (None when there is no such item).
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

import msgspec

from ..contract import COMPLETION_GATES, CONSERVATIVE_CONTINUITY_GATES
from ..report import wilson
from ._sample import KEY, AuditError, KeyEntry

Pair = tuple[str, str]  # (harness verdict, rater verdict)


class Rate(msgspec.Struct, frozen=True, kw_only=True):
    k: int
    n: int
    low: float
    high: float

    @property
    def value(self) -> float:
        return self.k / self.n


class FamilyScore(msgspec.Struct, frozen=True, kw_only=True):
    family: str
    n: int
    agreement: float
    kappa: float | None
    false_pass: Rate | None
    false_fail: Rate | None


def family_of(gate: str) -> str:
    if gate in COMPLETION_GATES:
        return "completion"
    if gate in CONSERVATIVE_CONTINUITY_GATES:
        return "continuity"
    return "visual"


def cohen_kappa(pairs: Iterable[Pair]) -> float | None:
    pairs = list(pairs)
    n = len(pairs)
    if not n:
        return None
    agree = sum(h == r for h, r in pairs) / n
    chance = sum(
        (sum(h == v for h, _ in pairs) / n) * (sum(r == v for _, r in pairs) / n)
        for v in ("pass", "fail")
    )
    return None if chance >= 1.0 else (agree - chance) / (1.0 - chance)


def _rate(pairs: list[Pair], rater: str, harness: str) -> Rate | None:
    base = [h for h, r in pairs if r == rater]
    if not base:
        return None
    k = sum(h == harness for h in base)
    low, high = wilson(k, len(base))
    return Rate(k=k, n=len(base), low=low, high=high)


def _family(name: str, pairs: list[Pair]) -> FamilyScore:
    return FamilyScore(
        family=name,
        n=len(pairs),
        agreement=sum(h == r for h, r in pairs) / len(pairs),
        kappa=cohen_kappa(pairs),
        false_pass=_rate(pairs, rater="fail", harness="pass"),
        false_fail=_rate(pairs, rater="pass", harness="fail"),
    )


def _ratings(path: Path, known: set[str]) -> dict[str, str]:
    if not path.is_file():
        raise AuditError(f"{path}: expected a ratings CSV (item,rating), got none")
    out: dict[str, str] = {}
    with path.open(newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f), 2):
            item, rating = (row.get("item") or "").strip(), (row.get("rating") or "").strip()
            if item not in known:
                raise AuditError(f"{path}:{line}: item: expected an item of the key, got {item!r}")
            if rating == "":
                continue  # not rated (yet)
            if rating not in ("pass", "fail"):
                raise AuditError(f"{path}:{line}: rating: expected pass or fail, got {rating!r}")
            out[item] = rating
    return out


def score(ratings: Path) -> list[FamilyScore]:
    """Overall ("all") first, then each family with rated items, in a fixed order."""
    key_path = ratings.parent / KEY
    if not key_path.is_file():
        raise AuditError(f"{key_path}: expected the packet's key beside the ratings, got none")
    dec = msgspec.json.Decoder(KeyEntry)
    try:
        key = {e.id: e for e in (dec.decode(x) for x in key_path.read_bytes().splitlines() if x)}
    except msgspec.DecodeError as exc:
        raise AuditError(f"{key_path}: {exc}") from exc
    rated = _ratings(ratings, set(key))
    if not rated:
        raise AuditError(f"{ratings}: no item rated pass or fail")
    pairs = [(key[i].verdict, r, family_of(key[i].gate)) for i, r in sorted(rated.items())]
    out = [_family("all", [(h, r) for h, r, _ in pairs])]
    for fam in ("completion", "continuity", "visual"):
        mine = [(h, r) for h, r, f in pairs if f == fam]
        if mine:
            out.append(_family(fam, mine))
    return out
