"""The scaffold arm's LLM gateway: metered, capped forwarding to the configured provider."""

from ._gateway import Account as Account
from ._gateway import Gateway as Gateway
from ._gateway import RequestRecord as RequestRecord
from ._gateway import Upstream as Upstream

__all__ = ["Account", "Gateway", "RequestRecord", "Upstream"]
