"""Crops of the region a failing visual check found different, for the cell page."""

from __future__ import annotations

from pathlib import Path

MARGIN = 24
OUTLINE = (220, 0, 0)


def crop_region(src: Path, box: tuple[int, int, int, int], out: Path) -> bool:
    """Write `src` cropped to `box` (plus a margin) with the box outlined; False when
    the box does not fall inside the image (e.g. a full-page box on a viewport shot)."""
    from PIL import Image, ImageDraw

    x, y, w, h = box
    with Image.open(src) as img:
        rgb = img.convert("RGB")
    if x >= rgb.width or y >= rgb.height:
        return False
    left, top = max(0, x - MARGIN), max(0, y - MARGIN)
    right, bottom = min(rgb.width, x + w + MARGIN), min(rgb.height, y + h + MARGIN)
    crop = rgb.crop((left, top, right, bottom))
    ImageDraw.Draw(crop).rectangle(
        (x - left, y - top, min(x + w, right) - left - 1, min(y + h, bottom) - top - 1),
        outline=OUTLINE,
        width=2,
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    crop.save(out)
    return True
