"""Stack discovery: every images/<stack>/ is a buildable stack with a valid image name;
`_`-prefixed folders are layers (the agent layer), not stacks."""

from __future__ import annotations

import re

from sandbox import IMAGES_DIR, stacks

# Docker's repository name grammar (one path component).
_NAME = re.compile(r"^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$")


def test_every_stack_has_a_valid_image_name_and_layers_are_not_stacks() -> None:
    found = stacks()
    expected = {"static", "node", "php", "vite", "react", "svelte", "hugo", "eleventy", "astro"}
    assert expected <= set(found)
    assert all(_NAME.match(f"pwb-{s}") for s in found), found
    layers = [p.name for p in IMAGES_DIR.iterdir() if p.name.startswith("_")]
    assert layers and not set(layers) & set(found)
