"""A node's parameters as one typed table (name, default, description, range or choices); no rclpy.

The table is the one source of a node's parameters: cobra_common.node_runtime.declare_table
declares exactly these (types from the defaults, ranges and read-only flags as descriptors) and
`validate` is the reason a value is refused, at start-up (check) and for a run-time update
(the node's on-set-parameters callback returns it). cobra_driver.driver_config is the model.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Parameter:
    name: str
    default: Any
    description: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Any, ...] | None = None
    read_only: bool = False      # fixed once the node runs
    allowed: str = ''            # the accepted values in words where the range cannot say it (an open end)
    dynamic_typing: bool = False  # any type is accepted (e.g. on/off that YAML reads as booleans)


def by_name(table: Iterable[Parameter]) -> dict[str, Parameter]:
    return {spec.name: spec for spec in table}


def validate(spec: Parameter, value: Any) -> str | None:
    """Reason the value is unacceptable for `spec`, or None."""
    if spec.choices is not None and value not in spec.choices:
        return f'{spec.name} must be one of {list(spec.choices)}, got {value!r}'
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if spec.minimum is not None and value < spec.minimum:
            return f'{spec.name} must be >= {spec.minimum}, got {value}'
        if spec.maximum is not None and value > spec.maximum:
            return f'{spec.name} must be <= {spec.maximum}, got {value}'
    return None


def first_problem(table: Mapping[str, Parameter], values: Mapping[str, Any]) -> str | None:
    """The first value of `values` (names in `table`; others ignored) that `validate` refuses."""
    for name, value in values.items():
        spec = table.get(name)
        if spec is not None and (reason := validate(spec, value)) is not None:
            return reason
    return None
