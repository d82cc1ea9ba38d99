"""Grade without re-running: a cell's recorded trajectory graded again with the current
harness and task package (`regrade`), and portable submissions (`export`)."""

from ._diff import CellDiff as CellDiff
from ._diff import VerdictDiff as VerdictDiff
from ._diff import agreement as agreement
from ._diff import agreement_table as agreement_table
from ._diff import cell_diff as cell_diff
from ._patches import PatchRefused as PatchRefused
from ._patches import check_patch as check_patch
from ._replay import ReplaySolver as ReplaySolver
from ._run import RegradeInputError as RegradeInputError
from ._run import RegradeOptions as RegradeOptions
from ._run import RegradeOutcome as RegradeOutcome
from ._run import regrade as regrade
from ._submission import SubmissionError as SubmissionError
from ._submission import SubmittedCell as SubmittedCell
from ._submission import export_run as export_run

__all__ = [
    "CellDiff",
    "PatchRefused",
    "RegradeInputError",
    "RegradeOptions",
    "RegradeOutcome",
    "ReplaySolver",
    "SubmissionError",
    "SubmittedCell",
    "VerdictDiff",
    "agreement",
    "agreement_table",
    "cell_diff",
    "check_patch",
    "export_run",
    "regrade",
]
