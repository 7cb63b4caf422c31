# SPDX-License-Identifier: GPL-2.0
"""The reference model of the board-number semantics, per driver.

Every slot number below the driver's slot count has an owner: the board
(its place on the bus; here the key the caller adds it under) that took
the number first, in a probe that worked or not. Ownership is for the
life of the module, and never changes.

- a board probes: it takes the number it owns, if that is free; a board
  that owns none takes the lowest free number nobody owns, and owns it;
  else (its own taken by another board, or no unowned slot free) the
  lowest free number, whoever owns it;
- a board on its own number gets its slot's values; a board on a number
  another board owns ("foreign") gets, per parameter, the value given if
  the values given for that parameter are alike (two or more, all equal,
  the number among them), else the default, and the driver says which
  parameters it ignored, once each per probe;
- a board goes away: its number is free again, nothing else changes, so
  a board re-plugged in the same place gets its number and values back;
- a probe fails: its number is free again; the board owns it if it took
  it and the number had no owner;
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
# console down, and a message of that file demoted to dev_dbg() must not
# reappear through it. "number" is in that format only.
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
    # What a parameter array holds where no value was given: a foreign
    # board ignores (and names) only the values given, not these.
    unset: int = 0
    # Which of reported's values each boot parameter sets, for a foreign
    # board that takes some parameters and not others.
    shows: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Whether a board whose probe fails keeps the number it took
    # (DEFINE_STATIC_BOARD_NUMBERS_COUNTING_FAILED(): the driver's old
    # counter counted failed probes), or gives it up to the next board.
    failed_probe_counts: bool = False
    # What a board numbered past the slots reports, where the driver sets
    # it otherwise than to the defaults (None: the defaults).
    past_slots: Values | None = None

    @property
    def modname(self) -> str:
        return self.module or self.name

    def given(self) -> dict[str, list[int]]:
        """Each boot parameter's values, as its comma list gives them:
        entry k for slot k."""
        per_param: dict[str, list[int]] = {}
        for slot in range(self.slots):
            for key, value in self.params(slot).items():
                per_param.setdefault(key, []).append(value)
        return per_param

    def cmdline(self) -> list[str]:
        return [f"{self.modname}.{key}={','.join(map(str, vals))}"
                for key, vals in self.given().items()]

    def alike(self, param: str, number: int) -> bool:
        """Whether @param's value for board @number applies whichever board
        owns the number: the values given number two or more, are all
        equal, and one is given for @number."""
        vals = self.given().get(param, [])
        return len(vals) >= 2 and len(set(vals)) == 1 and number < len(vals)

    def applied(self, number: int, params: set[str]) -> Values:
        """What a board numbered @number (a slot) reports when it takes the
        values given for @params and defaults for the others."""
        values = dict(self.defaults)
        reported = self.reported(number)
        for param in params:
            for key in self.shows[param]:
                values[key] = reported[key]
        return values

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
    shows={"TxDescriptors": ("tx",), "RxDescriptors": ("rx",)},
    warning="Warning: no configuration for board #{number}")


def _e1000e_itr(slot: int) -> int:
    return 1000 + 100 * slot  # a multiple of 4: no mode bits to strip


E1000E = DriverSpec(
    name="e1000e", device="e1000e", slots=32,
    failed_probe_counts=True,
    params=lambda k: {"InterruptThrottleRate": _e1000e_itr(k)},
    # e1000e reports rx-usecs as 1000000 / itr_setting, and the default
    # mode 3 (dynamic conservative) as 3.
    reported=lambda k: {"rx_usecs": 1000000 // _e1000e_itr(k)},
    defaults={"rx_usecs": 3},
    shows={"InterruptThrottleRate": ("rx_usecs",)},
    warning="Warning: no configuration for board #{number}")

# pcnet32 on QEMU's 79C970A: full_duplex[] forces full duplex, applied when
# the interface is opened and reported by ethtool. Slots 0-3 ask for it,
# alike (full_duplex=1,1,1,1), so a board on a number another board owns
# gets full duplex there too; slots 4-7 are given nothing (half duplex).
# A board without a slot (8 and up) is forced to full duplex by the driver
# itself ("board >= MAX_UNITS || full_duplex[board]"), as in the base: the
# series keeps that. The unpatched kernel's numbers move across the three
# groups, which the duplex shows.
_PCNET32_FDX_SLOTS = 4
PCNET32 = DriverSpec(
    name="pcnet32", device="pcnet", slots=8,
    params=lambda k: {"full_duplex": 1} if k < _PCNET32_FDX_SLOTS else {},
    reported=lambda k: {"duplex": 1 if k < _PCNET32_FDX_SLOTS else 0},
    defaults={"duplex": 0}, up=True, shows={"full_duplex": ("duplex",)},
    past_slots={"duplex": 1})

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
    failed_probe_counts=True,
    params=lambda k: {"options": k + 1},
    reported=lambda k: {"media": k + 1},
    defaults={"media": 0}, observe=_tulip_forced, number=_tulip_number,
    shows={"options": ("media",)})


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
    failed_probe_counts=True,
    params=lambda k: {"full_duplex": 1 - k % 2},
    reported=lambda k: {"fdx": 1 - k % 2},
    defaults={"fdx": 0}, up=True, observe=_ne2k_fdx, shows={"full_duplex": ("fdx",)},
    qemu_args=("-trace", "ne2000_ioport_write"))

DRIVERS = {spec.name: spec
           for spec in (E1000, E1000E, PCNET32, TULIP, NE2K_PCI)}


@dataclass
class Expected:
    number: int
    values: Values
    warns: bool
    # Whether the driver says that it ignores a parameter given for the
    # board that had the number first (None: not checked).
    told: bool | None = None


@dataclass
class DriverModel:
    spec: DriverSpec
    taken: dict[str, int] = field(default_factory=dict)  # board -> number
    owners: dict[int, str] = field(default_factory=dict)  # slot -> board
    # The slot a board's current probe made it the owner of, until the
    # probe ends: a failed probe that says it took another number moves it.
    claimed: dict[str, int] = field(default_factory=dict)

    def choose(self, board: str) -> int:
        """The number @board takes: its own if free; for a board that owns
        none, the lowest free slot nobody owns; else the lowest free one."""
        used = set(self.taken.values())
        owned = sorted(n for n, owner in self.owners.items() if owner == board)
        for number in owned:
            if number not in used:
                return number
        if not owned:
            for number in range(self.spec.slots):
                if number not in used and number not in self.owners:
                    return number
        return next(n for n in range(len(used) + 1) if n not in used)

    def expect(self, board: str, number: int) -> Expected:
        """What @board on @number reports, warns and says."""
        spec = self.spec
        warns = spec.warning is not None and number >= spec.slots
        if number >= spec.slots:
            past = spec.defaults if spec.past_slots is None else spec.past_slots
            return Expected(number, dict(past), warns, told=False)
        if self.owners.get(number) == board:
            return Expected(number, dict(spec.reported(number)), warns, told=False)
        # Foreign: what is alike applies, the rest given is ignored, named.
        params = spec.params(number)
        alike = {param for param in params if spec.alike(param, number)}
        told = any(value != spec.unset and param not in alike
                   for param, value in params.items())
        return Expected(number, spec.applied(number, alike), warns, told)

    def take(self, board: str, number: int) -> None:
        """@board has taken @number: it owns the slot if nobody did."""
        if number < self.spec.slots and number not in self.owners:
            self.owners[number] = board
            self.claimed[board] = number

    def add(self, board: str) -> Expected:
        if board in self.taken:
            raise ValueError(f"{board} added twice")
        number = self.choose(board)
        self.taken[board] = number
        self.claimed.pop(board, None)
        self.take(board, number)
        return self.expect(board, number)

    def forget(self, board: str, number: int | None = None) -> None:
        """A probe that failed: its number is free again. Where the
        driver counts failed probes, the board owns the number it took
        (@number, as the kernel logged it; None: the one the model gave
        it, which those drivers take early in probe) if it was the first
        to take it; elsewhere it gives up a slot this probe made it the
        owner of."""
        given = self.taken.pop(board)
        took = given if number is None else number
        claimed = self.claimed.pop(board, None)
        if claimed is not None and (claimed != took or
                                    not self.spec.failed_probe_counts):
            # Not the board's: the kernel says it took another number than
            # the model gave it, or the driver does not count the probe.
            del self.owners[claimed]
        if self.spec.failed_probe_counts:
            self.take(board, took)
            self.claimed.pop(board, None)

    def remove(self, board: str) -> None:
        """A bound board goes away: its number is free again."""
        del self.taken[board]
        self.claimed.pop(board, None)


class Model:
    """Every driver's DriverModel. A board is named by its place on the bus
    (the QEMU device id of a fixed slot, or the PCI address): the key that
    ownership goes by."""

    def __init__(self) -> None:
        self.drivers = {name: DriverModel(spec) for name, spec in DRIVERS.items()}

    def add(self, driver: str, board: str) -> Expected:
        return self.drivers[driver].add(board)

    def remove(self, driver: str, board: str) -> None:
        self.drivers[driver].remove(board)

    def forget(self, driver: str, board: str, number: int | None = None) -> None:
        self.drivers[driver].forget(board, number)
