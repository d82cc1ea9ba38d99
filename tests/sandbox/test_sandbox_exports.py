import types

import pytest

import sandbox


def test_exported_members() -> None:
    public = {name for name in dir(sandbox) if not name.startswith("_")}
    assert set(sandbox.__all__) <= public
    # Everything public is deliberate: in __all__, or a public submodule (`stacks`).
    # Private submodules (`_docker`, ...) appear in dir() but are not public.
    extra = public - set(sandbox.__all__)
    assert not {n for n in extra if not isinstance(getattr(sandbox, n), types.ModuleType)}, extra


def test_exported_members_fails_on_an_undeclared_public_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The check above must be able to fail: a public name outside __all__ is caught.
    monkeypatch.setattr(sandbox, "leaked_helper", lambda: None, raising=False)
    with pytest.raises(AssertionError):
        test_exported_members()
