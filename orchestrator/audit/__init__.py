"""The verifier's validity, measured against blind human raters (the paper's Appendix D).

- `sample(run_dir, tasks_dir, n, out)` (`_sample.py`): a blind rating packet from a
  recorded run: per sampled (cell, check), the task's request, the reference and final
  renders of the check's state and the check in words, with no verdict; the harness's
  verdicts go to a separate key file the raters are not given;
- `score(ratings)` (`_score.py`): agreement of the raters' verdicts with the harness:
  Cohen's kappa, and false-pass and false-fail rates with Wilson intervals, overall and
  per gate family.
"""

from ._sample import AuditError as AuditError
from ._sample import Item as Item
from ._sample import KeyEntry as KeyEntry
from ._sample import sample as sample
from ._score import FamilyScore as FamilyScore
from ._score import Rate as Rate
from ._score import cohen_kappa as cohen_kappa
from ._score import family_of as family_of
from ._score import score as score

__all__ = [
    "AuditError",
    "FamilyScore",
    "Item",
    "KeyEntry",
    "Rate",
    "cohen_kappa",
    "family_of",
    "sample",
    "score",
]
