import orchestrator.gateway as gateway


def test_public_names_are_exported_deliberately() -> None:
    public = {n for n in dir(gateway) if not n.startswith("_")}
    assert set(gateway.__all__) <= public
    assert public - set(gateway.__all__) <= {"annotations"} | {n.lstrip("_") for n in dir(gateway)}
    assert {"Gateway", "Upstream", "Account", "RequestRecord"} <= set(gateway.__all__)
