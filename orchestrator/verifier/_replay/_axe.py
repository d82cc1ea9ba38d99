"""axe-core (npm `axe-core`, pinned in `scripts/install`) run on a replayed state from an
isolated world (`_a11y_world.py`), never the page's main world, where the site could
redefine `axe` or the DOM APIs it reads.

`axe_source()` finds `axe.min.js`: `$PWB_AXE_JS`, else the install location below. The
rules are the WCAG 2.x A/AA tags plus axe's best practices (landmarks, headings); each
violation keeps its rule, its element (axe's unique selector) and what the rule measured
(for `color-contrast`: the ratio, both colours, the font and the ratio required).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

from playwright.async_api import Page

from ...records import AxeFinding
from .._core import VerifierError
from ._a11y_world import World, new_world

AXE_VERSION = "4.10.2"  # keep in step with scripts/install
AXE_PATHS = (Path("/usr/local/share/pwb/node_modules/axe-core/axe.min.js"),)
TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice")
# A state's "rule|target" and "rule#markup" passes kept for the comparison.
MAX_PASSES = 8000


class AxeMissing(VerifierError):
    """The pinned axe-core is not installed: the harness's setup, not the site."""


@functools.cache
def axe_source() -> str:
    env = os.environ.get("PWB_AXE_JS")
    candidates = (Path(env),) if env else AXE_PATHS
    for path in candidates:
        if path.is_file():
            return path.read_text()
    where = ", ".join(str(p) for p in candidates)
    raise AxeMissing(f"axe-core {AXE_VERSION} not found at {where}: run scripts/install")


RUN = r"""(async () => {
  const r = await axe.run(document, {
    runOnly: {type: 'tag', values: %s},
    iframes: false, elementRef: false, selectors: true, ancestry: false, xpath: false,
  });
  const tgt = n => (n.target || [])
    .map(t => Array.isArray(t) ? t.join(' >>> ') : t).join(' >>> ');
  const measure = n => {
    for (const c of [...(n.any || []), ...(n.all || []), ...(n.none || [])]) {
      const d = c.data;
      if (d && typeof d === 'object' && d.contrastRatio !== undefined) {
        return `contrast ${d.contrastRatio}:1 (${d.fgColor} on ${d.bgColor}, ${d.fontSize} ` +
          `${d.fontWeight}; needs ${d.expectedContrastRatio})`;
      }
    }
    return (n.failureSummary || '').replace(/\s+/g, ' ').trim().slice(0, 200);
  };
  // The element's markup, hashed (FNV-1a): matches an element whose axe selector moved
  // (a sibling with the same class added before it) as long as its markup did not change.
  const hash = n => {
    let h = 0x811c9dc5;
    const t = n.html || '';
    for (let i = 0; i < t.length; i++) { h ^= t.charCodeAt(i); h = Math.imul(h, 0x01000193); }
    return (h >>> 0).toString(16).padStart(8, '0');
  };
  const violations = [];
  for (const v of r.violations) for (const n of v.nodes)
    violations.push({rule: v.id, target: tgt(n), impact: n.impact || v.impact || '',
      measured: measure(n), markup: hash(n)});
  const passes = [];
  for (const p of r.passes) for (const n of p.nodes)
    passes.push(p.id + '|' + tgt(n), p.id + '#' + hash(n));
  return JSON.stringify({violations, passes: passes.slice(0, %d)});
})()"""


async def run_axe(page: Page) -> tuple[tuple[AxeFinding, ...], tuple[str, ...]]:
    """(violations, passes) of axe-core on the page as it is now."""
    world: World = await new_world(page, "pwb-axe")
    await world.eval(axe_source() + "\n;void 0")
    raw = await world.eval(RUN % (json.dumps(list(TAGS)), MAX_PASSES))
    data = json.loads(raw)
    found = tuple(
        AxeFinding(
            rule=v["rule"],
            target=v["target"],
            impact=v["impact"],
            measured=v["measured"],
            markup=v["markup"],
        )
        for v in data["violations"]
    )
    return found, tuple(data["passes"])
