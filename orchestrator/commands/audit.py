"""`python -m orchestrator audit sample RUN_DIR --n N` / `audit score RATINGS`: the
verifier's validity against blind raters (`orchestrator/audit`, README "Verifier validity").

Exit status: 0 done, 2 bad input (one line naming what and where).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..audit import AuditError, FamilyScore, Rate, sample, score

HELP = "blind rating packet from a run (sample); raters' agreement with the harness (score)"


def add_arguments(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="audit_cmd", metavar="ACTION", required=True)
    s = sub.add_parser("sample", help="write a blind rating packet of N sampled checks")
    s.add_argument("run_dir", type=Path, metavar="RUN_DIR")
    s.add_argument("--n", type=int, required=True, help="checks to sample")
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--out", type=Path, help="new or empty directory (default RUN_DIR/audit)")
    s.add_argument("--tasks-dir", type=Path, default=Path("tasks"))
    r = sub.add_parser("score", help="kappa, false-pass and false-fail rates per gate family")
    r.add_argument("ratings", type=Path, metavar="RATINGS", help="the packet's filled ratings.csv")


def _pct(rate: Rate | None) -> str:
    if rate is None:
        return "—"
    return f"{rate.k}/{rate.n} = {rate.value:.0%} [{rate.low:.0%}, {rate.high:.0%}]"


def _table(rows: list[FamilyScore]) -> str:
    head = "| family | n | agreement | Cohen's κ | false pass | false fail |\n" + "|---" * 6 + "|"
    body = [
        f"| {r.family} | {r.n} | {r.agreement:.1%} | "
        f"{'undefined' if r.kappa is None else f'{r.kappa:.2f}'} | "
        f"{_pct(r.false_pass)} | {_pct(r.false_fail)} |"
        for r in rows
    ]
    return "\n".join([head, *body])


def run(args: argparse.Namespace) -> int:
    try:
        if args.audit_cmd == "sample":
            out = args.out or args.run_dir / "audit"
            items = sample(args.run_dir, args.tasks_dir, args.n, out, args.seed)
            print(f"{out}: {len(items)} items; give raters packet.jsonl, renders/, ratings.csv")
            print(f"{out / 'key.jsonl'}: the harness's verdicts: keep it from the raters")
            return 0
        print(_table(score(args.ratings)))
        return 0
    except AuditError as exc:
        print(exc, file=sys.stderr)
        return 2
