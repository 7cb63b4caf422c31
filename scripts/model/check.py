# SPDX-License-Identifier: GPL-2.0
"""One probe checked against the reference model.

check() takes what the host saw of one probe (the agent's "NICWATCH add"
fields and the console lines up to them) and what the model expects,
reads the board number from the driver's own messages where they show
it, or from the values the NIC reports, and names the first violation.
The hot-plug scenarios (e2e/runner.py), the reliability runs
(reliability/*.py) and the harness's tests share it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from model.model import DRIVERS, Expected, Seen


# What a board on a number another board owns says of each parameter given
# for that board that it ignores, once per parameter per probe
# (drivers/base/board_numbers.c).
IGNORED = r"ignoring \S+ for board \d+: given for the board that had the number first"


def logged_number(driver: str, pci: str, lines: list[str]) -> int | None:
    """The last "board number N" the driver core logged for @pci (the
    patched kernel, with BOARD_NUMBER_DYNDBG), if any."""
    logged = None
    for line in lines:
        hit = re.search(rf"{re.escape(DRIVERS[driver].name)} {re.escape(pci)}: "
                        r"board number (\d+)", line)
        logged = int(hit.group(1)) if hit else logged
    return logged


@dataclass
class Probe:
    cycle: int
    driver: str
    device: str
    pci: str
    expected_number: int
    number: int | None  # logged by the driver, or inferred from its values
    expected: dict[str, int]
    observed: dict[str, int]
    warned: bool
    seconds: float
    violation: str = ""
    told: bool = False  # said it ignores a parameter given for the number's owner
    failed: int = 0  # the probe's error code, when it failed


def check(driver: str, device: str, expected: Expected,
          fields: dict[str, int | str], lines: list[str], cycle: int = 0,
          seconds: float = 0.0) -> Probe:
    """The probe of @device, with its violation of @expected if any."""
    spec = DRIVERS[driver]
    pci = str(fields.get("bus", "?"))
    seen = Seen(fields, lines, pci)
    observed = spec.values(seen)
    logged = logged_number(driver, pci, lines)
    warned_number = None
    warning = (re.escape(spec.warning).replace(re.escape("{number}"), r"(\d+)")
               if spec.warning else None)
    for line in lines:
        hit = (re.search(rf"{re.escape(spec.name)} {re.escape(pci)}: " + warning, line)
               if warning else None)
        warned_number = int(hit.group(1)) if hit else warned_number
    told = any(re.search(rf"{re.escape(spec.name)} {re.escape(pci)}: {IGNORED}", line)
               for line in lines)
    number = logged if logged is not None else warned_number
    if number is None and spec.number:
        number = spec.number(seen)
    if number is None:
        number = spec.slot_of(observed)
    result = Probe(cycle, driver, device, pci, expected.number, number,
                   expected.values, observed, warned_number is not None, seconds,
                   told=told)
    if fields.get("driver") != driver:
        result.violation = f"agent saw driver {fields.get('driver')}"
    elif observed != expected.values:
        result.violation = f"values {observed}, model {expected.values}"
    elif number is not None and number != expected.number:
        result.violation = f"board number {number}, model {expected.number}"
    elif result.warned != expected.warns:
        result.violation = (f"warning {'printed' if result.warned else 'missing'}"
                            f" for board {expected.number}")
    elif expected.told is not None and told != expected.told:
        result.violation = (f"ignored-parameter message {'printed' if told else 'missing'}"
                            f" for board {expected.number}")
    return result
