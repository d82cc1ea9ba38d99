import sandbox


def test_exported_members() -> None:
    for name in sandbox.__all__:
        member = getattr(sandbox, name)
        assert getattr(member, "__module__", "sandbox").startswith("sandbox")
