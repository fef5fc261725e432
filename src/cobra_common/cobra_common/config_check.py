"""The project's one config checker: settings as a typed table (range or choices) and one error
whose text names the key, the value and the fix. No rclpy.

Node parameter tables (the driver's), file schemas (soil YAML, DEM scenario, sweep spec) and the
odometry node's checks describe their keys as `Setting`s and judge values with `Setting.check`;
a check that spans several keys raises the same ConfigError (or a package's subclass of it) with
its own text. Standard text:
    <source>: parameter '<key>' = <value> is invalid: must be <allowed>; <fix>
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

ErrorT = TypeVar('ErrorT', bound='ConfigError')


class ConfigError(ValueError):
    """A config value that cannot be used; the text names the key, the value and the fix.
    Packages subclass it (SoilConfigError, ScenarioError, SweepSpecError) to say whose config it is."""

    def __init__(self, message: str, key: str | None = None, value: Any = None) -> None:
        super().__init__(message)
        self.key = key
        self.value = value

    @classmethod
    def invalid(cls: type[ErrorT], key: str, value: Any, allowed: str, source: str = '', fix: str = '') -> ErrorT:
        """The standard text: where, which key, which value, what is allowed and how to fix it."""
        where = f'{source}: ' if source else ''
        fix_text = fix or (f'fix it in {source}' if source else f'give {key} {allowed}')
        return cls(f"{where}parameter '{key}' = {value!r} is invalid: must be {allowed}; {fix_text}", key, value)


def is_number(value: Any) -> bool:
    """An int or float that is not a bool (YAML's true is not 1 here)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass(frozen=True)
class Setting:
    """One key of a config: its default and what it accepts. Bounds are inclusive unless
    `minimum_open` / `maximum_open`; `choices` lists every accepted value; `note` adds words to
    the accepted values (e.g. the device that fixes them)."""

    name: str
    default: Any = None
    description: str = ''
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    minimum_open: bool = False
    maximum_open: bool = False
    integer: bool = False
    number: bool = False          # a finite number even where no bound is given
    note: str = ''

    @property
    def numeric(self) -> bool:
        return self.minimum is not None or self.maximum is not None or self.integer or self.number

    @property
    def allowed(self) -> str:
        """What the setting accepts, in words: 'one of [...]' or 'a number in [low, high)'."""
        if self.choices is not None:
            text = f'one of {list(self.choices)}'
        elif self.numeric:
            left, right = ('(' if self.minimum_open else '['), (')' if self.maximum_open else ']')
            low = self.minimum if self.minimum is not None else '-inf'
            high = self.maximum if self.maximum is not None else 'inf'
            text = f"{'an integer' if self.integer else 'a number'} in {left}{low}, {high}{right}"
        else:
            text = 'any value'
        return f'{text} ({self.note})' if self.note else text

    def accepts(self, value: Any) -> bool:
        if self.choices is not None:  # True is not 1 here
            return any(value == choice and isinstance(value, bool) == isinstance(choice, bool)
                       for choice in self.choices)
        if not self.numeric:
            return True
        if not is_number(value) or not math.isfinite(float(value)):
            return False
        if self.integer and not float(value).is_integer():
            return False
        if self.minimum is not None and (value < self.minimum or (self.minimum_open and value == self.minimum)):
            return False
        return self.maximum is None or not (value > self.maximum or (self.maximum_open and value == self.maximum))

    def check(self, value: Any, source: str = '', fix: str = '', error: type[ErrorT] = ConfigError) -> Any:
        """`value` when accepted, else `error` with the standard text."""
        if not self.accepts(value):
            raise error.invalid(self.name, value, self.allowed, source, fix)
        return value

    def problem(self, value: Any, source: str = '', fix: str = '') -> str | None:
        """The standard text when `value` is refused, else None (for callers that report text)."""
        return None if self.accepts(value) else str(ConfigError.invalid(self.name, value, self.allowed, source, fix))


def by_name(settings: Iterable[Setting]) -> dict[str, Setting]:
    return {setting.name: setting for setting in settings}


def check_values(settings: Iterable[Setting], values: Mapping[str, Any], source: str = '',
                 error: type[ErrorT] = ConfigError) -> dict[str, Any]:
    """Every setting's value (its default where `values` lacks it), each checked; the first
    refused one raises `error`. Keys of `values` no setting names are left to the caller."""
    checked = {}
    for setting in settings:
        checked[setting.name] = setting.check(values.get(setting.name, setting.default), source, error=error)
    return checked
