"""Every command names a task by id (under --tasks-dir) or by its directory, alike."""

from __future__ import annotations

from pathlib import Path


def task_root(arg: str | Path, tasks_dir: Path) -> Path:
    """The task directory `arg` names: a path (a directory holding task.toml, or any
    path with a folder in it) as is, else a task id under `tasks_dir`."""
    path = Path(arg)
    if (path / "task.toml").is_file() or len(path.parts) > 1:
        return path
    return tasks_dir / path
