"""The authoring kit: scaffold a package (`new`) and propose preservation checks from
R0's captured evidence (`suggest`), and negatives (`suggest --negatives`); scaffold a
negative by hand in a scratch tree of the reference (`negative`). See
tasks/AUTHORING.md."""

from ._negatives import ProposedNegative as ProposedNegative
from ._negatives import suggest_negatives as suggest_negatives
from ._new import NPM_DEPS as NPM_DEPS
from ._new import SERVE as SERVE
from ._new import scaffold as scaffold
from ._scratch import R0 as R0
from ._scratch import SavedNegative as SavedNegative
from ._scratch import ScratchError as ScratchError
from ._scratch import default_dir as default_dir
from ._scratch import load_for_negative as load_for_negative
from ._scratch import open_scratch as open_scratch
from ._scratch import save_scratch as save_scratch
from ._suggest import EXISTS as EXISTS
from ._suggest import suggest as suggest
from ._twin import DerivedTwin as DerivedTwin
from ._twin import Settled as Settled
from ._twin import TwinError as TwinError
from ._twin import derive_twin as derive_twin
from ._twin import repatch_twin as repatch_twin
from ._twin import settle_twin as settle_twin

__all__ = [
    "EXISTS",
    "NPM_DEPS",
    "R0",
    "SERVE",
    "DerivedTwin",
    "ProposedNegative",
    "SavedNegative",
    "ScratchError",
    "Settled",
    "TwinError",
    "default_dir",
    "derive_twin",
    "load_for_negative",
    "open_scratch",
    "repatch_twin",
    "save_scratch",
    "scaffold",
    "settle_twin",
    "suggest",
    "suggest_negatives",
]
