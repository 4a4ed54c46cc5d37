"""`cached`: `functools.cached_property` without its lock, for the rule pass's hot objects.

Python 3.11's cached_property takes a lock on each first read (Python 3.12 dropped it), which made a
first read some 0.6 µs; the rule pass reads a dozen values of every object pair once each. What is
cached here is a pure function of a frozen object, so two threads that compute it both get equal
values; the later one is kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class cached(Generic[T]):
    """A read-once attribute: computed on first read, then kept in the instance's __dict__."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | cached[T]:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.name] = value
        return value
