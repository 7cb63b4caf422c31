# SPDX-License-Identifier: GPL-2.0
"""The reference model of the board-number semantics, per driver.

- a board probes: it gets the lowest number free in its driver;
- a bound board goes away: its number is free again, and its parameter
  slot is reset, so whoever takes the number next gets defaults;
- a probe fails: its number, if it took one, is free again, and its slot
  is left as it was (the board never used it);
- a number at or above the slot count gets defaults and the warning, for
  the drivers that have one.

Each driver's boot parameters give the slots values that show in what the
NIC reports, so the values show which slot a probe used. The model says
which values each probe must report; anything else is a violation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

Values = dict[str, int]


@dataclass(frozen=True)
class Seen:
    """What the host saw of one probe."""
    fields: dict[str, int | str]  # the agent's "NICWATCH add" line
    lines: list[str]  # console (and QEMU trace) lines up to that line
    pci: str


# The boot parameter that turns on the "board number N" lines, which the
# driver core logs for every converted driver (drivers/base/board_numbers.c),
# and nothing else: the drivers' other debug output would slow the serial
# console down, and a message of that file demoted to dev_dbg() (the
# spent-slot one) must not reappear through it. "number" is in that
# format only.
BOARD_NUMBER_DYNDBG = 'dyndbg="file board_numbers.c format number +p"'


@dataclass(frozen=True)
class DriverSpec:
    """How a driver's module parameters show in what the host can see."""
    name: str  # the kernel driver, as ethtool and dev_printk name it
    device: str  # the QEMU device model
    slots: int
    # The boot parameters giving slot k its values.
    params: Callable[[int], dict[str, int]]
    # What the host sees for slot k's values, and for the defaults.
    reported: Callable[[int], Values]
    defaults: Values
    # The driver's own message for a board without a slot, if it has one.
    warning: str | None = None
    # Module name for boot parameters, when it is not the driver's name.
    module: str = ""
    # Whether the agent brings the interface up before reading it back.
    up: bool = False
    # The observed values; by default the agent's fields named in defaults.
    observe: Callable[[Seen], Values] | None = None
    # The board number from the driver's own messages, where they show it
    # (the patched drivers' "board number N" is read for every driver).
    number: Callable[[Seen], int | None] | None = None
    # QEMU arguments the observation needs (trace events).
    qemu_args: tuple[str, ...] = ()
    # What a parameter array holds where no value was given: a slot whose
    # values are all this has nothing to tell about when it is spent.
    unset: int = 0

    @property
    def modname(self) -> str:
        return self.module or self.name


    def cmdline(self) -> list[str]:
        per_param: dict[str, list[str]] = {}
        for slot in range(self.slots):
            for key, value in self.params(slot).items():
                per_param.setdefault(key, []).append(str(value))
        return [f"{self.modname}.{key}={','.join(vals)}"
                for key, vals in per_param.items()]

    def values(self, seen: Seen) -> Values:
        if self.observe:
            return self.observe(seen)
        return {k: int(seen.fields[k]) for k in self.defaults if k in seen.fields}

    def slot_of(self, values: Values) -> int | None:
        """The one slot whose values a NIC reports (None: defaults, or
        values that several slots share, which name no slot)."""
        slots = [slot for slot in range(self.slots)
                 if all(values.get(k) == v for k, v in self.reported(slot).items())]
        return slots[0] if len(slots) == 1 and values != self.defaults else None


def _e1000_ring(slot: int) -> int:
    return 512 + 8 * slot  # a multiple of 8, as the driver aligns rings


E1000 = DriverSpec(
    name="e1000", device="e1000", slots=32,
    params=lambda k: {"TxDescriptors": _e1000_ring(k),
                      "RxDescriptors": _e1000_ring(k) + 1024},
    reported=lambda k: {"tx": _e1000_ring(k), "rx": _e1000_ring(k) + 1024},
    defaults={"tx": 256, "rx": 256},
    warning="Warning: no configuration for board #{number}")


def _e1000e_itr(slot: int) -> int:
    return 1000 + 100 * slot  # a multiple of 4: no mode bits to strip


E1000E = DriverSpec(
    name="e1000e", device="e1000e", slots=32,
    params=lambda k: {"InterruptThrottleRate": _e1000e_itr(k)},
    # e1000e reports rx-usecs as 1000000 / itr_setting, and the default
    # mode 3 (dynamic conservative) as 3.
    reported=lambda k: {"rx_usecs": 1000000 // _e1000e_itr(k)},
    defaults={"rx_usecs": 3},
    warning="Warning: no configuration for board #{number}")

# pcnet32 on QEMU's 79C970A: full_duplex[] forces full duplex, applied when
# the interface is opened and reported by ethtool. Every slot asks for it,
# so a reset slot (half duplex) is what tells a reused number apart.
PCNET32 = DriverSpec(
    name="pcnet32", device="pcnet", slots=8,
    params=lambda k: {"full_duplex": 1},
    reported=lambda k: {"duplex": 1},
    defaults={"duplex": 0}, up=True)

# tulip: options[] forces a medium, which the driver announces as
# "tulip<board>: Transceiver selection forced to 10base2"; the driver also
# names the board "tulip<board>" in its EEPROM messages, so the number
# shows on the plain kernel too. tulip reports no link settings.
_TULIP_MEDIA = ("10baseT", "10base2", "AUI", "100baseTx", "10baseT-FDX",
                "100baseTx-FDX", "100baseT4", "100baseFx", "100baseFx-FDX")


def _tulip_forced(seen: Seen) -> Values:
    for line in seen.lines:
        m = re.search(r"tulip\d+: Transceiver selection forced to (\S+)$", line)
        if m and m.group(1) in _TULIP_MEDIA:
            return {"media": _TULIP_MEDIA.index(m.group(1))}
    return {"media": 0}


def _tulip_number(seen: Seen) -> int | None:
    for line in seen.lines:
        m = re.search(r"\] tulip(\d+): ", line)
        if m:
            return int(m.group(1))
    return None


TULIP = DriverSpec(
    name="tulip", device="tulip", slots=8,
    params=lambda k: {"options": k + 1},
    reported=lambda k: {"media": k + 1},
    defaults={"media": 0}, observe=_tulip_forced, number=_tulip_number)


# ne2k-pci: full_duplex[] makes the driver switch an RTL8029 to full duplex
# when the interface is opened, by writing 0x40 to CONFIG3 (register 6 of
# page 3). Neither ethtool nor the driver's messages show it, and QEMU's
# ne2k_pci ignores page 3, so the host reads QEMU's trace of the guest's
# port writes: page 3 selected (0xe0 to the command register), CONFIG3
# unlocked (0xc0 to register 1), 0x40 to register 6.
_NE2K_FDX = re.compile(r"addr=0x00 val=0xe0\n[^\n]*addr=0x01 val=0xc0\n"
                       r"[^\n]*addr=0x06 val=0x40$", re.M)


def _ne2k_fdx(seen: Seen) -> Values:
    trace = "\n".join(line for line in seen.lines
                      if line.startswith("ne2000_ioport_write "))
    return {"fdx": 1 if _NE2K_FDX.search(trace) else 0}


# Slot 0 on, slot 1 off and so on, so that the old off-by-one (the first
# board reading slot 1) shows too.
NE2K_PCI = DriverSpec(
    name="ne2k-pci", module="ne2k_pci", device="ne2k_pci", slots=8,
    params=lambda k: {"full_duplex": 1 - k % 2},
    reported=lambda k: {"fdx": 1 - k % 2},
    defaults={"fdx": 0}, up=True, observe=_ne2k_fdx,
    qemu_args=("-trace", "ne2000_ioport_write"))

DRIVERS = {spec.name: spec
           for spec in (E1000, E1000E, PCNET32, TULIP, NE2K_PCI)}


@dataclass
class Expected:
    number: int
    values: Values
    warns: bool
    # Whether the driver says that the board gets defaults because its
    # slot was spent by a board that went away (None: not checked).
    told: bool | None = None


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
        warns = self.spec.warning is not None and number >= self.spec.slots
        told = number in self.reset and any(
            value != self.spec.unset for value in self.spec.params(number).values())
        return Expected(number, dict(values), warns, told)

    def forget(self, device: str) -> None:
        """A probe that failed: whether or not it took a number, the
        number is free again and its slot as it was."""
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
