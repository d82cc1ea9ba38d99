"""The authoring kit: scaffold a package (`new`) and propose preservation checks from
R0's captured evidence (`suggest`). See tasks/AUTHORING.md."""

from ._new import NPM_DEPS as NPM_DEPS
from ._new import SERVE as SERVE
from ._new import scaffold as scaffold
from ._suggest import suggest as suggest

__all__ = ["NPM_DEPS", "SERVE", "scaffold", "suggest"]
