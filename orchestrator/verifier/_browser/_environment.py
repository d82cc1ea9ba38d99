"""The pinned rendering environment and its fingerprint (`evidence/env.json`).

A verdict must not depend on the host. Chromium finds fonts through fontconfig, so the
browser gets a fontconfig file of ours (`FONTCONFIG_FILE`) that lists one directory:
links to exactly the font files in `PINNED_FONTS` (Debian's `fonts-dejavu-core` and
`fonts-liberation2`, installed by `scripts/install`), with explicit family aliases and
rendering settings (antialiasing, slight hinting, no subpixel colour). Host fonts and
host fontconfig rules cannot leak in. Locale, timezone, colour scheme, motion and scale
are context options (`_pool.py`).

`RenderEnv` fingerprints the environment: the browser's major version, a hash of the
pinned font files and fontconfig, and a hash of the pixels of a small calibration page
rendered in it. `capture` writes it next to the evidence; `verify` compares the running
environment with it before grading a visual check.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol

import anyio
import msgspec

from ...contract import TaskPackage
from .._core import EnvironmentDrift, VerifierError, VerifierInfraError
from ._confine import BrowserUser, give

# The gates whose verdicts compare pixels or boxes with evidence captured elsewhere.
VISUAL_GATES = frozenset({"visual_anchors", "visual_regression"})
ENV_FILE = "env.json"
FONT_PACKAGES = "fonts-dejavu-core fonts-liberation2"

_DEJAVU = "/usr/share/fonts/truetype/dejavu"
_LIBERATION = "/usr/share/fonts/truetype/liberation2"
PINNED_FONTS: tuple[str, ...] = (
    *(
        f"{_DEJAVU}/{name}.ttf"
        for name in (
            "DejaVuSans",
            "DejaVuSans-Bold",
            "DejaVuSansMono",
            "DejaVuSansMono-Bold",
            "DejaVuSerif",
            "DejaVuSerif-Bold",
        )
    ),
    *(
        f"{_LIBERATION}/Liberation{family}-{style}.ttf"
        for family in ("Sans", "Serif", "Mono")
        for style in ("Regular", "Bold", "Italic", "BoldItalic")
    ),
)

# Family names sites ask for, bound to a pinned face with the same metrics.
_SAME_AS = {
    "Liberation Sans": ("Arial", "Helvetica", "Helvetica Neue", "Arimo"),
    "Liberation Serif": ("Times New Roman", "Times", "Tinos"),
    "Liberation Mono": ("Courier New", "Courier", "Cousine"),
}
_GENERIC = {
    "sans-serif": ("Liberation Sans", "DejaVu Sans"),
    "serif": ("Liberation Serif", "DejaVu Serif"),
    "monospace": ("Liberation Mono", "DejaVu Sans Mono"),
    "system-ui": ("Liberation Sans", "DejaVu Sans"),
}


def _family(name: str) -> str:
    return f"<family>{name}</family>"


def fontconfig_xml(font_dir: Path, cache_dir: Path) -> str:
    """The whole fontconfig of the pinned environment (no include of host config)."""
    aliases = [
        f'  <alias binding="same">{_family(alias)}<prefer>{_family(face)}</prefer></alias>'
        for face, names in _SAME_AS.items()
        for alias in names
    ]
    aliases += [
        f"  <alias>{_family(generic)}<prefer>{''.join(map(_family, faces))}</prefer></alias>"
        for generic, faces in _GENERIC.items()
    ]
    not_generic = "".join(
        f'<test qual="all" name="family" compare="not_eq"><string>{g}</string></test>'
        for g in ("sans-serif", "serif", "monospace")
    )
    render = "".join(
        f'<edit name="{name}" mode="assign">{value}</edit>'
        for name, value in (
            ("antialias", "<bool>true</bool>"),
            ("hinting", "<bool>true</bool>"),
            ("hintstyle", "<const>hintslight</const>"),
            ("autohint", "<bool>false</bool>"),
            ("rgba", "<const>none</const>"),
            ("lcdfilter", "<const>lcdnone</const>"),
            ("embeddedbitmap", "<bool>false</bool>"),
        )
    )
    return "\n".join(
        [
            '<?xml version="1.0"?>',
            '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
            "<fontconfig>",
            f"  <dir>{font_dir}</dir>",
            f"  <cachedir>{cache_dir}</cachedir>",
            *aliases,
            # A pattern naming no generic family falls back to sans-serif.
            f'  <match target="pattern">{not_generic}'
            '<edit name="family" mode="append_last"><string>sans-serif</string></edit></match>',
            f'  <match target="font">{render}</match>',
            "</fontconfig>",
            "",
        ]
    )


def missing_fonts(fonts: Iterable[str] = PINNED_FONTS) -> list[str]:
    return [f for f in fonts if not Path(f).is_file()]


def fonts_digest(fonts: Iterable[str] = PINNED_FONTS) -> str:
    """sha256 over each pinned font's name and bytes, and the fontconfig rules."""
    h = hashlib.sha256(fontconfig_xml(Path("/fonts"), Path("/cache")).encode())
    for f in fonts:
        h.update(Path(f).name.encode() + b"\0")
        h.update(hashlib.sha256(Path(f).read_bytes()).digest())
    return h.hexdigest()


class PinnedFonts:
    """A private fontconfig for one browser: a directory of links to the pinned fonts.

    `env` is the whole environment the browser process gets (nothing of the host's but
    PATH), so neither `FONTCONFIG_FILE` of the host nor its home directory's config
    reaches it. Given the `owner` the browser runs as (`_confine.py`), the directory
    (its home and font cache included) is handed to it.
    """

    def __init__(
        self, fonts: tuple[str, ...] = PINNED_FONTS, *, owner: BrowserUser | None = None
    ) -> None:
        missing = missing_fonts(fonts)
        if missing:
            raise VerifierInfraError(
                f"pinned font {missing[0]} is missing ({len(missing)} in all): install "
                f"Debian's {FONT_PACKAGES} (bash scripts/install)"
            )
        self._tmp = tempfile.TemporaryDirectory(prefix="pwb-fonts-")
        root = Path(self._tmp.name)
        font_dir, cache_dir, home = root / "fonts", root / "cache", root / "home"
        for d in (font_dir, cache_dir, home):
            d.mkdir()
        for f in fonts:
            (font_dir / Path(f).name).symlink_to(f)
        conf = root / "fonts.conf"
        conf.write_text(fontconfig_xml(font_dir, cache_dir), encoding="utf-8")
        if owner is not None:
            give(root, owner)
        self.env: dict[str, str | float | bool] = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "FONTCONFIG_FILE": str(conf),
            "TZ": "UTC",
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
        }

    def close(self) -> None:
        self._tmp.cleanup()


class RenderEnv(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What `evidence/env.json` holds; `browser_version` is informational only."""

    browser: str
    browser_major: int
    browser_version: str
    fonts: str
    calibration: str

    def differences(self, other: RenderEnv) -> list[str]:
        """What differs in `other` (the running environment) from this one (evidence)."""
        out = []
        if (self.browser, self.browser_major) != (other.browser, other.browser_major):
            out.append(
                f"browser {other.browser} {other.browser_major} here, "
                f"{self.browser} {self.browser_major} in the evidence"
            )
        if self.fonts != other.fonts:
            out.append(f"fonts {other.fonts[:12]} here, {self.fonts[:12]} in the evidence")
        if self.calibration != other.calibration:
            out.append(
                f"calibration render {other.calibration[:12]} here, "
                f"{self.calibration[:12]} in the evidence"
            )
        return out


def write_env(env: RenderEnv, evidence_dir: Path) -> None:
    evidence_dir.mkdir(parents=True, exist_ok=True)
    data = msgspec.json.format(msgspec.json.encode(env), indent=1)
    (evidence_dir / ENV_FILE).write_bytes(data + b"\n")


def read_env(evidence_dir: Path) -> RenderEnv | None:
    """The evidence's fingerprint; None when there is none. A bad file is an error."""
    path = evidence_dir / ENV_FILE
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    try:
        return msgspec.json.decode(data, type=RenderEnv)
    except msgspec.ValidationError as exc:
        raise VerifierError(f"{path}: {exc}") from exc
    except msgspec.DecodeError as exc:
        raise VerifierError(f"{path}: not JSON ({exc})") from exc


def drift(expected: RenderEnv | None, actual: RenderEnv) -> str:
    """One phrase saying how the environment differs from the evidence's; '' if not."""
    if expected is None:
        return f"the evidence has no {ENV_FILE} (captured before the environment was pinned)"
    return "; ".join(expected.differences(actual))


class MeasuredEnvironment(Protocol):
    """What the drift checks need of a browser pool (`_browser._pool.BrowserPool`)."""

    allow_env_drift: bool

    async def environment(self) -> RenderEnv: ...


async def environment_drift(pool: MeasuredEnvironment, task: TaskPackage) -> str:
    """How `pool`'s environment differs from the one `task`'s evidence was captured in
    ('' when it does not, or when the task has no visual check that could tell)."""
    if not any(c.gate in VISUAL_GATES for c in task.contract.checks):
        return ""
    expected = await anyio.to_thread.run_sync(read_env, task.evidence)
    return drift(expected, await pool.environment())


async def check_environment(pool: MeasuredEnvironment, tasks: Iterable[TaskPackage]) -> list[str]:
    """Raise `EnvironmentDrift` for the first task whose evidence was rendered elsewhere;
    with `pool.allow_env_drift`, the warnings to print instead (visual gates n/a)."""
    warnings = []
    for task in tasks:
        why = await environment_drift(pool, task)
        if why and not pool.allow_env_drift:
            raise EnvironmentDrift(task.contract.id, why)
        if why:
            warnings.append(
                f"{task.contract.id}: environment drift ({why}): visual gates not applicable"
            )
    return warnings


def pixels_digest(png: bytes) -> str:
    """sha256 of the decoded RGBA pixels (not the PNG bytes: encoders may differ)."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as img:
        rgba = img.convert("RGBA")
        return hashlib.sha256(f"{rgba.size}".encode() + rgba.tobytes()).hexdigest()


# Text in every family the shipped sites ask for, at the sizes they use.
CALIBRATION_HTML = """<!doctype html><html><head><meta charset="utf-8"><style>
body { margin: 8px; background: #fff; color: #111; }
p { margin: 2px 0; font-size: 15px; }
</style></head><body>
<p style="font-family: sans-serif">Sphinx of black quartz, judge my vow 0123456789</p>
<p style="font-family: serif">Sphinx of black quartz, judge my vow 0123456789</p>
<p style="font-family: monospace">Sphinx of black quartz, judge my vow 0123456789</p>
<p style="font-family: system-ui">Sphinx of black quartz, judge my vow — é ß ø</p>
<p style="font-family: Arial; font-weight: 700">Bold Arial, Helvetica fallback</p>
<p style="font-family: Georgia, 'Times New Roman', serif; font-style: italic">Georgia</p>
<p style="font-family: 'Trebuchet MS', Verdana, sans-serif; font-size: 28px">Headline Wg</p>
</body></html>"""
