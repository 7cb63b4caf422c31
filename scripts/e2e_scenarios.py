"""The hot-plug scenarios: sequences of device_add and device_del.

Every NIC sits on pci.0 (ACPI hot-plug on i440fx) at a fixed slot, and has
no network backend, so nothing it sends leaves QEMU.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Op:
    add: bool
    driver: str
    device: str  # QEMU device id
    addr: int  # slot on pci.0


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    ops: list[Op]
    # Stop the plain-kernel run at its first violation (the control only
    # needs one); the seed scenarios run in full for the plot.
    plain_full: bool


def replug(driver: str, cycles: int) -> list[Op]:
    ops = []
    for _ in range(cycles):
        ops += [Op(True, driver, "nic", 3), Op(False, driver, "nic", 3)]
    return ops


def interleaved(seed: int, steps: int) -> list[Op]:
    """Seeded random adds and removes of e1000 and e1000e on six slots."""
    rng = random.Random(seed)
    present: dict[int, str] = {}
    ops = []
    for _ in range(steps):
        addr = rng.randrange(3, 9)
        if addr in present:
            ops.append(Op(False, present.pop(addr), f"nic{addr}", addr))
        else:
            present[addr] = rng.choice(["e1000", "e1000e"])
            ops.append(Op(True, present[addr], f"nic{addr}", addr))
    for addr, driver in sorted(present.items()):
        ops.append(Op(False, driver, f"nic{addr}", addr))
    return ops


SEED = 20041917  # the seed report's date, 2004-09-17, reused as a seed


def scenarios(cycles: int = 100) -> list[Scenario]:
    return [
        Scenario("a", f"one e1000 hot-added and removed {cycles} times",
                 replug("e1000", cycles), plain_full=True),
        Scenario("b", f"one e1000e hot-added and removed {cycles} times",
                 replug("e1000e", cycles), plain_full=True),
        Scenario("c", f"e1000 and e1000e interleaved on six slots (seed {SEED})",
                 interleaved(SEED, 80), plain_full=False),
    ]
