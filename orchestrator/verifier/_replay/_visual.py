"""Pixel diff of a state's render against its frozen reference (Pillow + numpy)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from .._core import Outcome

# The colour masked regions are painted with, in both images.
MASK_RGB = (255, 0, 255)
Box = tuple[float, float, float, float]  # x, y, width, height in image pixels


def _load(data: bytes | Path) -> NDArray[np.int16]:
    from PIL import Image

    src = io.BytesIO(data) if isinstance(data, bytes) else data
    with Image.open(src) as img:
        return np.asarray(img.convert("RGB"), dtype=np.int16)


def _paint(pixels: NDArray[np.int16], boxes: list[Box]) -> None:
    h, w = pixels.shape[:2]
    for x, y, bw, bh in boxes:
        x0, y0 = max(0, int(x)), max(0, int(y))
        x1, y1 = min(w, int(np.ceil(x + bw))), min(h, int(np.ceil(y + bh)))
        if x1 > x0 and y1 > y0:
            pixels[y0:y1, x0:x1] = MASK_RGB


Region = tuple[int, int, int, int]  # x, y, width, height


def diff_region(
    current: bytes, reference: Path, masks: list[Box], pixel_tolerance: int
) -> tuple[float, Region | None] | str:
    """Fraction of differing pixels and the box holding them (None when none differ), or
    why the images cannot be compared."""
    cur, ref = _load(current), _load(reference)
    if cur.shape != ref.shape:
        return f"size {cur.shape[1]}x{cur.shape[0]} vs reference {ref.shape[1]}x{ref.shape[0]}"
    # Masks come from the current page; paint them on the reference too so a region
    # that moved or was never masked at capture time is ignored in both.
    _paint(cur, masks)
    _paint(ref, masks)
    differs = np.abs(cur - ref).max(axis=2) > pixel_tolerance
    if not differs.any():
        return 0.0, None
    ys, xs = np.nonzero(differs.any(axis=1))[0], np.nonzero(differs.any(axis=0))[0]
    x0, y0 = int(xs[0]), int(ys[0])
    box = (x0, y0, int(xs[-1]) - x0 + 1, int(ys[-1]) - y0 + 1)
    return float(differs.mean()), box


def compare(
    current: bytes, reference: Path, masks: list[Box], threshold: float, pixel_tolerance: int
) -> Outcome:
    if not reference.is_file():
        return Outcome(
            passed=False,
            observed=f"no reference render at {reference}; run `python -m orchestrator capture`",
        )
    got = diff_region(current, reference, masks, pixel_tolerance)
    if isinstance(got, str):
        return Outcome(passed=False, observed=got)
    frac, box = got
    passed = frac <= threshold
    where = "" if passed or box is None else f", inside {box[2]}x{box[3]} at ({box[0]}, {box[1]})"
    return Outcome(
        passed=passed,
        observed=f"{frac:.2%} of pixels differ (threshold {threshold:.2%}){where}",
        region=None if passed else box,
    )
