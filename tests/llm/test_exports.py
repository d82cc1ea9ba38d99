import orchestrator.llm as llm


def test_public_names_are_exported_from_private_modules() -> None:
    assert sorted(llm.__all__) == llm.__all__
    for name in llm.__all__:
        obj = getattr(llm, name)
        if isinstance(obj, type):
            assert obj.__module__.startswith("orchestrator.llm._"), name
