"""One isolated world kept for several evaluations (axe-core's source, the focus walk).

`_browser._world.isolated_eval` makes a new world per call; the accessibility probes need
state across calls (axe's source injected once, the unfocused styles of every focusable
element kept while the keyboard moves the focus). The world is made with CDP
`Page.createIsolatedWorld` on the main frame: it shares the DOM with the page but none of
its globals or prototypes, so the site can neither see nor forge what is read there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.async_api import Page

from .._browser import page_session


class WorldError(Exception):
    """The evaluation threw, or the world went away (the page navigated)."""


@dataclass(frozen=True, slots=True)
class World:
    page: Page
    context_id: int

    async def eval(self, expression: str) -> Any:
        cdp = await page_session(self.page)
        answer: dict[str, Any] = await cdp.send(
            "Runtime.evaluate",
            {
                "expression": expression,
                "contextId": self.context_id,
                "awaitPromise": True,
                "returnByValue": True,
            },
        )
        if "exceptionDetails" in answer:
            d = answer["exceptionDetails"]
            text = d.get("exception", {}).get("description") or d.get("text", "exception")
            raise WorldError(str(text).splitlines()[0][:300])
        return answer.get("result", {}).get("value")


async def new_world(page: Page, name: str) -> World:
    cdp = await page_session(page)
    tree = await cdp.send("Page.getFrameTree")
    made = await cdp.send(
        "Page.createIsolatedWorld",
        {"frameId": tree["frameTree"]["frame"]["id"], "worldName": name},
    )
    return World(page=page, context_id=int(made["executionContextId"]))
