"""Protected-state flips with provenance: passed at k, failed at k', repaired at k''."""

from __future__ import annotations

from ..records import Flip, VerifyReport


class FlipTracker:
    """Follows every armed check (protected and preservation) across checkpoints."""

    def __init__(self) -> None:
        self._last_pass: dict[str, int] = {}
        self._open: dict[str, Flip] = {}
        self.flips: list[Flip] = []

    def observe(
        self, index: int, report: VerifyReport, armed: set[str]
    ) -> tuple[list[Flip], list[Flip]]:
        """Record one checkpoint; returns (new flips, repairs) among `armed` checks."""
        new: list[Flip] = []
        repaired: list[Flip] = []
        for result in report.checks:
            cid = result.id
            if not result.authored or not result.applicable:
                continue
            if result.passed:
                if cid in self._open:
                    flip = self._open.pop(cid)
                    done = Flip(
                        check=flip.check,
                        gate=flip.gate,
                        passed_at=flip.passed_at,
                        failed_at=flip.failed_at,
                        repaired_at=index,
                    )
                    self.flips[self.flips.index(flip)] = done
                    repaired.append(done)
                self._last_pass[cid] = index
            elif cid in armed and cid in self._last_pass and cid not in self._open:
                flip = Flip(
                    check=cid, gate=result.gate, passed_at=self._last_pass[cid], failed_at=index
                )
                self._open[cid] = flip
                self.flips.append(flip)
                new.append(flip)
        return new, repaired
