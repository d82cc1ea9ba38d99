import sandbox


def test_exported_members() -> None:
    public = {name for name in dir(sandbox) if not name.startswith("_")}
    assert set(sandbox.__all__) <= public
    # everything public is deliberate: in __all__, or a private submodule's name
    assert public - set(sandbox.__all__) <= {n.lstrip("_") for n in dir(sandbox)} | set()
