"""The scaffold arm's LLM gateway: metered, capped forwarding to the configured provider.

Modules, one job each: `_gateway` (the server, accounts, refusals), `_account` (a cell's
caps and charges), `_api` (routes, tokens, errors in each API's shape), `_forward` (the
upstream request, the answer passed back or relayed), `_settle` (charging and judging a
finished call), `_meter` (usage read off answers and streams), `_http` (HTTP/1.1 on anyio).
"""

from ._account import Account as Account
from ._account import RequestRecord as RequestRecord
from ._account import Upstream as Upstream
from ._gateway import Gateway as Gateway
from ._meter import StreamMeter as StreamMeter
from ._meter import meter_body as meter_body

__all__ = ["Account", "Gateway", "RequestRecord", "StreamMeter", "Upstream", "meter_body"]
