"""A failing visual check says where the render differs, to the pixel."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from orchestrator.verifier._replay._visual import compare


def _png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def test_failing_visual_check_carries_the_box_of_differing_pixels(tmp_path: Path) -> None:
    ref = Image.new("RGB", (120, 80), (250, 250, 250))
    ref.save(tmp_path / "ref.png")
    cur = ref.copy()
    cur.paste((200, 0, 0), (30, 20, 50, 45))  # a 20x25 block at (30, 20)
    cur.putpixel((90, 70), (0, 0, 0))  # and one stray pixel
    out = compare(_png(cur), tmp_path / "ref.png", [], threshold=0.01, pixel_tolerance=8)
    assert not out.passed
    assert out.region == (30, 20, 61, 51)
    assert "61x51 at (30, 20)" in out.observed
    same = compare(_png(ref), tmp_path / "ref.png", [], threshold=0.01, pixel_tolerance=8)
    assert same.passed and same.region is None
    # A masked difference is no difference, and leaves no region.
    masked = compare(_png(cur), tmp_path / "ref.png", [(0, 0, 120, 80)], 0.01, 8)
    assert masked.passed and masked.region is None
