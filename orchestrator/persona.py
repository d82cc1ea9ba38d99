"""The simulated user: deterministic wording around the authored units.

It never invents requirements, never reads the reference and never decides pass/fail:
it wraps `request`, answers from `faq`, and quotes the verifier's grounded failures.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from .contract import Contract, Persona, Unit
from .records import CheckResult

NOT_SPECIFIED = "That is not specified; use your judgement."
MAX_FAILURES_QUOTED = 8
_STOP = frozenset(
    "a an the is are do does should i we it to of in on for and or be can what which how "
    "with this that there any my our you your".split()
)

_OPENERS: dict[Persona, tuple[str, str]] = {
    "pm": ("Next request from product", "Rework request from product"),
    "qa": ("New QA report", "QA follow-up on an earlier fix"),
    "designer": ("Design review note", "Design rework note"),
}
_PUSHBACK: dict[Persona, str] = {
    "pm": "I checked the site and it is not there yet. Here is what I saw:",
    "qa": "Re-tested; still failing. Observations:",
    "designer": "Reviewed the build; these points are still off:",
}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP}


Wording = Literal["persona", "literal"]
LITERAL_PUSHBACK = "These requirements are not met yet:"


class SimulatedUser:
    """`wording="literal"` is the paper's ablation of the persona: the same authored units
    and failures, without the persona's framing (opener, voice)."""

    def __init__(self, contract: Contract, wording: Wording = "persona") -> None:
        self.contract = contract
        self.persona: Persona = contract.effective_persona
        self.wording: Wording = wording

    def reveal(self, unit: Unit, index: int) -> str:
        total = len(self.contract.units)
        if self.wording == "literal":
            return f"Requirement {index + 1} of {total}:\n\n{unit.request.strip()}"
        opener = _OPENERS[self.persona][unit.kind == "rework"]
        return f"{opener} ({index + 1} of {total}):\n\n{unit.request.strip()}"

    def full_spec(self) -> str:
        parts = [f"{i + 1}. {u.request.strip()}" for i, u in enumerate(self.contract.units)]
        return "Please implement all of the following, in order:\n\n" + "\n\n".join(parts)

    def answer(self, question: str, units: Sequence[Unit]) -> str:
        """The best-matching FAQ answer of `units`, or 'not specified'."""
        asked = _words(question)
        best, best_score = NOT_SPECIFIED, 0.0
        for unit in units:
            for faq in unit.faq:
                known = _words(faq.question)
                if not known or not asked:
                    continue
                score = len(asked & known) / len(known)
                if score > best_score:
                    best, best_score = faq.answer, score
        return best if best_score >= 0.5 else NOT_SPECIFIED

    def pushback(self, failures: Sequence[CheckResult]) -> str:
        lines = [f"- {f.message}" for f in failures[:MAX_FAILURES_QUOTED]]
        more = len(failures) - MAX_FAILURES_QUOTED
        if more > 0:
            lines.append(f"- ...and {more} more problem(s).")
        intro = LITERAL_PUSHBACK if self.wording == "literal" else _PUSHBACK[self.persona]
        return intro + "\n" + "\n".join(lines)

    def nudge(self) -> str:
        return "Please continue with the request."
