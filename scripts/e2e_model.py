"""The reference model of the board-number semantics, per driver.

- a board probes: it gets the lowest number free in its driver;
- a board goes away: its number is free again, and its parameter slot is
  reset, so whoever takes the number next gets defaults;
- a number at or above the slot count gets defaults and the warning.

Each driver's boot parameters give every slot distinct values, so the
values a NIC reports through ethtool show which slot it used. The model
says which values each probe must report; anything else is a violation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

Values = dict[str, int]


@dataclass(frozen=True)
class DriverSpec:
    """How a driver's module parameters show through ethtool."""
    name: str
    slots: int
    # The boot parameters giving slot k its own values.
    params: Callable[[int], dict[str, int]]
    # What ethtool reports for slot k's values, and for the defaults.
    reported: Callable[[int], Values]
    defaults: Values
    # The driver's own message for a board without a slot.
    warning: str

    def cmdline(self) -> list[str]:
        per_param: dict[str, list[str]] = {}
        for slot in range(self.slots):
            for key, value in self.params(slot).items():
                per_param.setdefault(key, []).append(str(value))
        return [f"{self.name}.{key}={','.join(vals)}"
                for key, vals in per_param.items()]

    def slot_of(self, values: Values) -> int | None:
        """Which slot's values a NIC reports, if any (None: defaults)."""
        for slot in range(self.slots):
            if all(values.get(k) == v for k, v in self.reported(slot).items()):
                return slot
        return None


def _e1000_ring(slot: int) -> int:
    return 512 + 8 * slot  # a multiple of 8, as the driver aligns rings


E1000 = DriverSpec(
    name="e1000", slots=32,
    params=lambda k: {"TxDescriptors": _e1000_ring(k),
                      "RxDescriptors": _e1000_ring(k) + 1024},
    reported=lambda k: {"tx": _e1000_ring(k), "rx": _e1000_ring(k) + 1024},
    defaults={"tx": 256, "rx": 256},
    warning="Warning: no configuration for board #{number}")


def _e1000e_itr(slot: int) -> int:
    return 1000 + 100 * slot  # a multiple of 4: no mode bits to strip


E1000E = DriverSpec(
    name="e1000e", slots=32,
    params=lambda k: {"InterruptThrottleRate": _e1000e_itr(k)},
    # e1000e reports rx-usecs as 1000000 / itr_setting, and the default
    # mode 3 (dynamic conservative) as 3.
    reported=lambda k: {"rx_usecs": 1000000 // _e1000e_itr(k)},
    defaults={"rx_usecs": 3},
    warning="Warning: no configuration for board #{number}")

DRIVERS = {spec.name: spec for spec in (E1000, E1000E)}


@dataclass
class Expected:
    number: int
    values: Values
    warns: bool


@dataclass
class DriverModel:
    spec: DriverSpec
    taken: dict[str, int] = field(default_factory=dict)  # device id -> number
    reset: set[int] = field(default_factory=set)

    def add(self, device: str) -> Expected:
        if device in self.taken:
            raise ValueError(f"{device} added twice")
        used = set(self.taken.values())
        number = next(n for n in range(len(used) + 1) if n not in used)
        self.taken[device] = number
        has_slot = number < self.spec.slots and number not in self.reset
        values = self.spec.reported(number) if has_slot else self.spec.defaults
        return Expected(number, dict(values), number >= self.spec.slots)

    def forget(self, device: str) -> None:
        """A probe that failed before taking a number: nothing changes."""
        del self.taken[device]

    def remove(self, device: str) -> None:
        number = self.taken.pop(device)
        if number < self.spec.slots:
            self.reset.add(number)


class Model:
    def __init__(self) -> None:
        self.drivers = {name: DriverModel(spec) for name, spec in DRIVERS.items()}

    def add(self, driver: str, device: str) -> Expected:
        return self.drivers[driver].add(device)

    def remove(self, driver: str, device: str) -> None:
        self.drivers[driver].remove(device)

    def forget(self, driver: str, device: str) -> None:
        self.drivers[driver].forget(device)
