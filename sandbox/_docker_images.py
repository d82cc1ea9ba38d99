"""Build the images cells run in: base -> stack -> task, each cached by content hash.

- base  `pwb-base:bookworm`: images/base/bootstrap.sh (debootstrap + docker import)
  when missing; no registry is needed.
- stack `pwb-<stack>:<hash>` (+ `:latest`): images/<stack>/Dockerfile `FROM ${BASE}`;
  the hash covers that directory, the CA bundle and the base image id, so an unchanged
  stack is never rebuilt.
- task  `pwb-task-<stack>:<hash>`: when images/<stack>/task.Dockerfile exists and the
  repo has a package.json, the stack image + the repo's dependencies installed at build
  time (the hash covers the stack image and the manifest files). Otherwise the stack
  image itself is the task image.
- agent `pwb-agent:<hash>`: a CLI agent (scaffold arm) installed on top of a task image
  from images/_agent/Dockerfile, its PyPI/npm/Debian packages listed in the build
  context (the hash covers them, the template and the task image id). npm packages are
  installed by the host's npm into a staging prefix that goes into the build context
  (Debian's own npm package alone takes minutes to install); the image gets Debian's
  nodejs for their launchers.

Concurrent callers asking for one image build it once (a lock per tag); how many
builds run at a time is the caller's limiter, not a global.
"""

from __future__ import annotations

import hashlib
import io
import shutil
import tarfile
import tempfile
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

import aiodocker
import anyio
import msgspec

from ._docker_errors import docker_client, entering
from ._types import ImageError, UnknownStack

Progress = Callable[[str], None]
BASE_TAG = "pwb-base:bookworm"
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
MANIFESTS = ("package.json", "package-lock.json")
IMAGES_DIR = Path(__file__).resolve().parent.parent / "images"


class AgentLayer(msgspec.Struct, frozen=True, kw_only=True):
    """What an agent image adds on top of a task image (installed at build time)."""

    pip: tuple[str, ...] = ()  # PyPI requirement specifiers, into a venv at /opt/pwb-agent
    npm: tuple[str, ...] = ()  # npm packages, under /opt/pwb-agent-npm
    apt: tuple[str, ...] = ()  # Debian packages

    @property
    def empty(self) -> bool:
        return not (self.pip or self.npm or self.apt)


class ImageInfo(msgspec.Struct, frozen=True, kw_only=True):
    tag: str
    id: str
    size_mb: float
    created: int


def _digest(parts: Iterable[tuple[str, bytes]]) -> str:
    h = hashlib.sha256()
    for name, data in parts:
        h.update(name.encode() + b"\0" + hashlib.sha256(data).digest())
    return h.hexdigest()[:16]


def _tar(files: dict[str, bytes], trees: dict[str, Path] | None = None) -> io.BytesIO:
    """A build context: `files` by name, and whole directory `trees` (modes and symlinks
    kept) under their names."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
        for name, root in sorted((trees or {}).items()):
            tar.add(root, arcname=name, recursive=True)
    buf.seek(0)
    return buf


NPM_TIMEOUT_S = 900.0


async def _stage_npm(packages: tuple[str, ...], prefix: Path) -> None:
    """`npm install --global --prefix` on the host: `prefix`/bin and `prefix`/lib/node_modules."""
    prefix.mkdir(parents=True, exist_ok=True)
    if not packages:
        return
    npm = shutil.which("npm")
    if npm is None:
        raise ImageError(f"agent layer npm {list(packages)}: no npm on this host (scripts/install)")
    argv = [npm, "install", "--global", "--prefix", str(prefix), "--no-fund", "--no-audit"]
    argv += ["--no-update-notifier", "--omit=dev", *packages]
    with anyio.move_on_after(NPM_TIMEOUT_S) as scope:
        result = await anyio.run_process(argv, check=False)
    if scope.cancelled_caught:
        raise ImageError(f"npm install {list(packages)}: no answer in {NPM_TIMEOUT_S:.0f}s")
    if result.returncode != 0:
        tail = (result.stdout + result.stderr)[-3000:].decode(errors="replace")
        raise ImageError(f"npm install {list(packages)} failed ({result.returncode}):\n{tail}")


def _dir_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def stacks(images_dir: Path = IMAGES_DIR) -> list[str]:
    """Stack names: every images/<stack>/Dockerfile but `_`-prefixed layers (`_agent`)."""
    return sorted(
        p.parent.name for p in images_dir.glob("*/Dockerfile") if not p.parent.name.startswith("_")
    )


class ImageBuilder:
    """Builds and caches images. One per process is typical; tests make their own."""

    def __init__(
        self,
        images_dir: Path = IMAGES_DIR,
        *,
        limiter: anyio.CapacityLimiter | None = None,
        ca_bundle: Path | None = CA_BUNDLE,
    ) -> None:
        self._dir = images_dir
        self._limiter = limiter or anyio.CapacityLimiter(1)
        self._ca = ca_bundle.read_bytes() if ca_bundle and ca_bundle.exists() else b""
        self._locks: dict[str, anyio.Lock] = {}

    def _lock(self, key: str) -> anyio.Lock:
        return self._locks.setdefault(key, anyio.Lock())

    async def _image_id(self, docker: aiodocker.Docker, tag: str) -> str:
        """The image id, or "" when it does not exist."""
        with entering(f"inspect {tag}", image=True):
            try:
                info = await docker.images.inspect(tag)
            except aiodocker.DockerError as exc:
                if exc.status == 404:
                    return ""
                raise
        return str(info["Id"])

    async def ensure_base(self, progress: Progress) -> str:
        async with self._lock(BASE_TAG), docker_client(BASE_TAG) as docker:
            if found := await self._image_id(docker, BASE_TAG):
                return found
            progress(f"base: bootstrapping {BASE_TAG} (debootstrap, about a minute)")
            script = self._dir / "base" / "bootstrap.sh"
            result = await anyio.run_process(["bash", str(script)], check=False)
            if result.returncode != 0:
                tail = (result.stdout + result.stderr)[-4000:].decode(errors="replace")
                raise ImageError(f"{script} failed ({result.returncode}):\n{tail}")
            return await self._image_id(docker, BASE_TAG)

    async def ensure_stack(self, stack: str, progress: Progress) -> str:
        """The tag of the stack image, built if its inputs changed."""
        ctx_dir = self._dir / stack
        if not (ctx_dir / "Dockerfile").is_file():
            raise UnknownStack(f"no stack image {stack!r}: {ctx_dir}/Dockerfile missing")
        base_id = await self.ensure_base(progress)
        files = {**_dir_files(ctx_dir), "pwb-ca.crt": self._ca}
        tag = f"pwb-{stack}:{_digest([('base', base_id.encode()), *files.items()])}"
        await self._build(tag, files, {"BASE": BASE_TAG}, progress, also_latest=True)
        return tag

    async def ensure_task_image(self, stack: str, repo_dir: Path, progress: Progress) -> str:
        """The image a cell of this task runs: stack image + installed dependencies."""
        stack_tag = await self.ensure_stack(stack, progress)
        template = self._dir / stack / "task.Dockerfile"
        manifests = {n: (repo_dir / n).read_bytes() for n in MANIFESTS if (repo_dir / n).is_file()}
        if not template.is_file() or "package.json" not in manifests:
            return stack_tag
        files = {
            "Dockerfile": template.read_bytes(),
            **{f"deps/{n}": data for n, data in manifests.items()},
        }
        tag = f"pwb-task-{stack}:{_digest([('stack', stack_tag.encode()), *files.items()])}"
        await self._build(tag, files, {"STACK": stack_tag}, progress, also_latest=False)
        return tag

    async def ensure_agent_image(self, image: str, agent: AgentLayer, progress: Progress) -> str:
        """`image` with the agent's packages installed; `image` itself when there are none."""
        if agent.empty:
            return image
        async with aiodocker.Docker() as docker:
            base_id = await self._image_id(docker, image)
        if not base_id:
            raise ImageError(f"agent layer: no image {image!r} to build on")
        lists = {
            f"{kind}.txt": "".join(f"{p}\n" for p in pkgs).encode()
            for kind, pkgs in (("pip", agent.pip), ("npm", agent.npm), ("apt", agent.apt))
        }
        files = {**_dir_files(self._dir / "_agent"), **lists}
        tag = f"pwb-agent:{_digest([('base', base_id.encode()), *files.items()])}"
        with tempfile.TemporaryDirectory(prefix="pwb-agent-npm-") as tmp:
            staged = Path(tmp) / "npm"

            async def stage() -> None:
                progress(f"{tag}: npm install {' '.join(agent.npm)} (host)")
                await _stage_npm(agent.npm, staged)

            await self._build(
                tag,
                files,
                {"STACK": image},
                progress,
                also_latest=False,
                trees={"npm": staged},
                before=stage,
            )
        return tag

    async def _build(
        self,
        tag: str,
        files: dict[str, bytes],
        buildargs: dict[str, str],
        progress: Progress,
        *,
        also_latest: bool,
        trees: dict[str, Path] | None = None,
        before: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        """Build `tag` unless it exists; `before` runs first (it prepares `trees`)."""
        async with self._lock(tag), docker_client(tag) as docker:
            if await self._image_id(docker, tag):
                progress(f"{tag}: up to date")
                return
            async with self._limiter:
                if before is not None:
                    await before()
                progress(f"{tag}: building")
                await self._stream_build(docker, tag, files, buildargs, progress, trees)
            if also_latest:
                repo = tag.split(":", 1)[0]
                with entering(f"tag {tag}", image=True):
                    await docker.images.tag(tag, repo, tag="latest")
            progress(f"{tag}: built")

    async def _stream_build(
        self,
        docker: aiodocker.Docker,
        tag: str,
        files: dict[str, bytes],
        buildargs: dict[str, str],
        progress: Progress,
        trees: dict[str, Path] | None = None,
    ) -> None:
        tail: list[str] = []
        with entering(f"building {tag}", image=True):
            context = await anyio.to_thread.run_sync(_tar, files, trees)
            try:
                async for chunk in docker.images.build(
                    fileobj=context,
                    encoding="identity",
                    tag=tag,
                    buildargs=buildargs,
                    rm=True,
                    forcerm=True,
                    stream=True,
                ):
                    line = str(chunk.get("stream", "")).rstrip()
                    if line:
                        tail[:] = [*tail[-40:], line]
                    if line.startswith("Step "):
                        progress(f"{tag}: {line}")
            except aiodocker.DockerError as exc:
                log = "\n".join(tail)
                raise ImageError(f"building {tag} failed: {exc}\n{log}") from exc

    async def list_images(self) -> list[ImageInfo]:
        async with docker_client("list images") as docker:
            with entering("list images", image=True):
                images = await docker.images.list()
        out = []
        for img in images:
            for tag in img.get("RepoTags") or []:
                if tag.startswith("pwb-"):
                    out.append(
                        ImageInfo(
                            tag=tag,
                            id=str(img["Id"]),
                            size_mb=round(int(img.get("Size", 0)) / 1e6, 1),
                            created=int(img.get("Created", 0)),
                        )
                    )
        return sorted(out, key=lambda i: i.tag)


async def ensure_task_image(
    stack: str, repo_dir: Path, progress: Progress, *, builder: ImageBuilder | None = None
) -> str:
    """Convenience: pass a shared `builder` to dedupe concurrent builds of one image."""
    return await (builder or ImageBuilder()).ensure_task_image(stack, repo_dir, progress)
