"""The authoring kit: scaffold a package (`new`) and propose preservation checks from
R0's captured evidence (`suggest`), and negatives (`suggest --negatives`). See
tasks/AUTHORING.md."""

from ._negatives import ProposedNegative as ProposedNegative
from ._negatives import suggest_negatives as suggest_negatives
from ._new import NPM_DEPS as NPM_DEPS
from ._new import SERVE as SERVE
from ._new import scaffold as scaffold
from ._suggest import suggest as suggest

__all__ = ["NPM_DEPS", "SERVE", "ProposedNegative", "scaffold", "suggest", "suggest_negatives"]
