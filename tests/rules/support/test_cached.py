"""`cached` reads an attribute once per object, as functools.cached_property does."""

from __future__ import annotations

from dataclasses import dataclass

from aftershock.rules.support.cached import cached

CALLS: list[int] = []


@dataclass(frozen=True)
class Box:
    size: int

    @cached
    def doubled(self) -> int:
        """Twice the size."""
        CALLS.append(self.size)
        return self.size * 2


def test_a_value_is_computed_once_per_object_and_kept() -> None:
    CALLS.clear()
    small, large = Box(1), Box(5)
    assert (small.doubled, small.doubled, large.doubled) == (2, 2, 10)
    assert CALLS == [1, 5]
    assert small.__dict__["doubled"] == 2
    assert Box(1) == small  # a kept value is no field: equality is the fields'


def test_the_class_attribute_is_the_descriptor_with_its_doc() -> None:
    assert isinstance(Box.__dict__["doubled"], cached)
    assert Box.doubled.__doc__ == "Twice the size."
