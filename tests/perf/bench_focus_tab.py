"""What one Tab of the focus walk costs, and where it goes (#51, session 22).

Run: `python tests/perf/bench_focus_tab.py [--rounds R] [--tabs N]`.

One headless Chromium page with N buttons; the focus walk's own scripts
(`_replay._focus.SNAPSHOT`, `READ`) in its own isolated world. Per Tab, interleaved
round by round so host noise hits every variant alike, the median over rounds of:

- `walk`: `keyboard.press("Tab")`, then READ (as `focus_walk` does);
- `cdp-keys`: the key as two raw CDP `Input.dispatchKeyEvent` calls, then READ;
- `key-only`: `keyboard.press("Tab")` alone;
- `no-turns`: the key, then READ without its two zero-timeout turns (the wait that lets
  a blur handler's refocus run first: what trap detection relies on);
- `one-turn`: READ with one turn.

Prints one line per variant, ms per Tab, and its ratio to `walk`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Awaitable, Callable

import anyio
from playwright.async_api import CDPSession, Page, async_playwright

from orchestrator.verifier._replay._a11y_world import World, new_world
from orchestrator.verifier._replay._focus import READ, SNAPSHOT

TURNS = "for (let i = 0; i < 2; i++) await new Promise(r => setTimeout(r, 0));"
TAB = {"key": "Tab", "code": "Tab", "windowsVirtualKeyCode": 9, "nativeVirtualKeyCode": 9}
Step = Callable[[Page, CDPSession, World], Awaitable[None]]


def _variants() -> dict[str, Step]:
    no_turns = READ.replace(TURNS, "")
    one_turn = READ.replace(TURNS, "await new Promise(r => setTimeout(r, 0));")
    assert no_turns != READ and one_turn != READ, "READ's turns changed: update TURNS"

    async def walk(page: Page, cdp: CDPSession, world: World) -> None:
        await page.keyboard.press("Tab")
        await world.eval(READ)

    async def cdp_keys(page: Page, cdp: CDPSession, world: World) -> None:
        await cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", **TAB})
        await cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **TAB})
        await world.eval(READ)

    async def key_only(page: Page, cdp: CDPSession, world: World) -> None:
        await page.keyboard.press("Tab")

    async def turns(page: Page, cdp: CDPSession, world: World, read: str) -> None:
        await page.keyboard.press("Tab")
        await world.eval(read)

    async def none(page: Page, cdp: CDPSession, world: World) -> None:
        await turns(page, cdp, world, no_turns)

    async def one(page: Page, cdp: CDPSession, world: World) -> None:
        await turns(page, cdp, world, one_turn)

    return {
        "walk": walk,
        "cdp-keys": cdp_keys,
        "key-only": key_only,
        "no-turns": none,
        "one-turn": one,
    }


async def main(rounds: int, tabs: int) -> None:
    html = "<main>" + "".join(f"<button id=b{i}>Button {i}</button>" for i in range(tabs))
    variants = _variants()
    per: dict[str, list[float]] = {k: [] for k in variants}
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path="/usr/bin/chromium")
        page = await browser.new_page()
        cdp = await page.context.new_cdp_session(page)
        for _ in range(rounds):
            for name, step in variants.items():
                await page.set_content(html + "</main>")
                world = await new_world(page, "pwb-focus-bench")
                await world.eval(SNAPSHOT)
                t0 = time.perf_counter()
                for _ in range(tabs):
                    await step(page, cdp, world)
                per[name].append((time.perf_counter() - t0) / tabs * 1000)
        await browser.close()
    walk = statistics.median(per["walk"])
    for name, values in per.items():
        ms = statistics.median(values)
        print(f"{name:9} {ms:6.2f} ms/Tab  {ms / walk:5.2f}x walk")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--tabs", type=int, default=25)
    args = ap.parse_args()
    anyio.run(main, args.rounds, args.tabs, backend="asyncio")
