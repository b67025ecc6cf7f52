"""The public API is what ``unimem.__all__`` says, sorted, and nothing is missing."""

import unimem


def test_all_is_sorted_and_exported():
    assert list(unimem.__all__) == sorted(unimem.__all__)
    for name in unimem.__all__:
        assert hasattr(unimem, name), name


def test_public_names_are_all_listed():
    public = {
        name
        for name, value in vars(unimem).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("unimem")
    }
    assert public <= set(unimem.__all__)
