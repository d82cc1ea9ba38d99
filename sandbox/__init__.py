"""Where a workspace is built and served: Docker (isolated) or local processes (not)."""

from ._auto import BackendKind as BackendKind
from ._auto import open_backend as open_backend
from ._auto import open_session as open_session
from ._docker import DockerBackend as DockerBackend
from ._docker_images import IMAGES_DIR as IMAGES_DIR
from ._docker_images import AgentLayer as AgentLayer
from ._docker_images import ImageBuilder as ImageBuilder
from ._docker_images import ImageInfo as ImageInfo
from ._docker_images import ensure_task_image as ensure_task_image
from ._docker_images import stacks as stacks
from ._docker_probe import docker_available as docker_available
from ._firewall import BROWSER_PORTS as BROWSER_PORTS
from ._firewall import Allow as Allow
from ._firewall import FirewallUnavailable as FirewallUnavailable
from ._firewall import confine_owner as confine_owner
from ._firewall import installed as firewall_chains
from ._firewall import preflight as firewall_preflight
from ._gc import AdhocSweep as AdhocSweep
from ._gc import Own as Own
from ._gc import Removed as Removed
from ._gc import adhoc_sweep as adhoc_sweep
from ._gc import collect_garbage as collect_garbage
from ._gc import lock_held as lock_held
from ._gc import unique_sweep as unique_sweep
from ._lifecycle import ManagedBackend as ManagedBackend
from ._local import LocalBackend as LocalBackend
from ._types import Backend as Backend
from ._types import BackendUnavailable as BackendUnavailable
from ._types import ContainerError as ContainerError
from ._types import ExecResult as ExecResult
from ._types import ImageError as ImageError
from ._types import Labels as Labels
from ._types import Limits as Limits
from ._types import Sandbox as Sandbox
from ._types import SandboxError as SandboxError
from ._types import ServeOutcome as ServeOutcome
from ._types import ServeSpec as ServeSpec
from ._types import UnknownStack as UnknownStack

__all__ = [
    "BROWSER_PORTS",
    "IMAGES_DIR",
    "AdhocSweep",
    "AgentLayer",
    "Allow",
    "Backend",
    "BackendKind",
    "BackendUnavailable",
    "ContainerError",
    "DockerBackend",
    "ExecResult",
    "FirewallUnavailable",
    "ImageBuilder",
    "ImageError",
    "ImageInfo",
    "Labels",
    "Limits",
    "LocalBackend",
    "ManagedBackend",
    "Own",
    "Removed",
    "Sandbox",
    "SandboxError",
    "ServeOutcome",
    "ServeSpec",
    "UnknownStack",
    "adhoc_sweep",
    "collect_garbage",
    "confine_owner",
    "docker_available",
    "ensure_task_image",
    "firewall_chains",
    "firewall_preflight",
    "lock_held",
    "open_backend",
    "open_session",
    "stacks",
    "unique_sweep",
]
