# SPDX-License-Identifier: GPL-2.0
"""The hot-plug scenarios: sequences of device_add and device_del.

Every NIC sits on pci.0 (ACPI hot-plug on i440fx) or behind a bridge at a
fixed slot, and has no network backend, so nothing it sends leaves QEMU.
Op.driver names the kernel driver; model.model.DRIVERS says which QEMU
device model it drives. The kernel knows a board again by its place on
the bus (Op.board), whatever device id it was added under: the first board
to take a number owns its slot, and gets the slot's values back on every
re-add.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True)
class Op:
    add: bool
    driver: str
    device: str  # QEMU device id
    addr: int  # slot on the bus
    bus: str = "pci.0"

    @property
    def board(self) -> str:
        """Who the board is to the kernel, and so to the model: its place
        on the bus (matrix() re-plugs a slot under another device id)."""
        return f"{self.bus}:{self.addr:#x}"


@dataclass(frozen=True)
class Scenario:
    name: str
    title: str
    ops: list[Op]
    # Stop the plain-kernel run at its first violation (the control only
    # needs one); scenario a runs in full for the plot.
    plain_full: bool
    # Devices present from boot, such as the bridges NICs are plugged into.
    qemu_args: tuple[str, ...] = ()


def replug(driver: str, cycles: int, addr: int = 3) -> list[Op]:
    """One NIC, device id "nic", hot-added and removed at slot @addr."""
    ops = []
    for _ in range(cycles):
        ops += [Op(True, driver, "nic", addr), Op(False, driver, "nic", addr)]
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


def crowd() -> tuple[list[Op], tuple[str, ...]]:
    """More than 32 e1000 at once, some behind two pci-bridges; then holes.

    pci.0 takes 27 NICs (slots 3-29), br1 five and br2 eight. A bridge's
    2 MiB memory window holds six e1000 (128 KiB BARs, aligned), so the
    last two on br2 fail their probe with -EIO, which must not keep the
    number they took (38, which has no slot to own): 38 NICs work at once.
    Then boards 3, 10, 20 and 26 are removed and re-added at the same
    addresses, and must get their numbers back, and with them the values
    of the slots they own.
    """
    bridges = ("-device", "pci-bridge,id=br1,chassis_nr=1,bus=pci.0,addr=0x1e",
               "-device", "pci-bridge,id=br2,chassis_nr=2,bus=pci.0,addr=0x1f")
    ops = [Op(True, "e1000", f"nic{a}", a) for a in range(3, 30)]
    for bridge, count in (("br1", 5), ("br2", 8)):
        ops += [Op(True, "e1000", f"{bridge}-nic{a}", a, bridge)
                for a in range(1, count + 1)]
    holes = [Op(False, "e1000", f"nic{a}", a) for a in (6, 13, 23, 29)]
    ops += holes + [Op(True, o.driver, o.device, o.addr) for o in holes]
    return ops, bridges


def matrix(driver: str, seed: int, start: int = 6, width: int = 10,
           churn: int = 28, replugs: int = 8) -> list[Op]:
    """One driver's board numbers over more than four times its 8 slots.

    @start NICs first; then, @churn times, a seeded random one of @width
    bus slots is hot-added, after a hot-remove if it holds a NIC. The
    first 8 NICs to take a number own its slot: each gets its number back,
    with its values, on every re-add. The other @width - 8 own none; they
    join with the 8 owners present, and take 8 and 9, which have no slot.
    Then all go, and the last NIC to join, which owns no slot, is
    re-plugged @replugs times (under another device id, "nic"): with every
    owner gone it takes board 0 each time, a number another board owns,
    and gets only the values given alike (pcnet32's full_duplex=1,1,1,1),
    defaults for the others and the driver's word for each one it
    ignores. 6 + 28 + 8 = 42 hot-adds.
    """
    rng = random.Random(seed)
    present = set(range(3, 3 + start))
    joined = sorted(present)  # bus slots, in the order their NICs first came
    ops = [Op(True, driver, f"nic{a}", a) for a in sorted(present)]
    most = len(present)
    for _ in range(churn):
        a = rng.randrange(3, 3 + width)
        if a in present:
            ops.append(Op(False, driver, f"nic{a}", a))
        elif a not in joined:
            joined.append(a)
        present.add(a)
        most = max(most, len(present))
        ops.append(Op(True, driver, f"nic{a}", a))
    if most < width:
        raise ValueError(f"seed {seed} never has {width} NICs present")
    ops += [Op(False, driver, f"nic{a}", a) for a in sorted(present)]
    return ops + replug(driver, replugs, joined[-1])


SEED = 20041917  # the seed report's date, 2004-09-17, reused as a seed


def scenarios(cycles: int = 100, soak: int = 1000,
              steps: int = 80) -> list[Scenario]:
    crowd_ops, bridges = crowd()
    return [
        # Not among the defaults: make check-debug's long run.
        Scenario("soak", f"soak: e1000 and e1000e interleaved on six slots, "
                 f"about {soak} hot-plug cycles (seed {SEED + 1})",
                 interleaved(SEED + 1, 2 * soak), plain_full=False),
        Scenario("a", f"one e1000 hot-added and removed {cycles} times",
                 replug("e1000", cycles), plain_full=True),
        Scenario("b", f"one e1000e hot-added and removed {cycles} times",
                 replug("e1000e", cycles), plain_full=False),
        Scenario("c", f"e1000 and e1000e interleaved on six slots, {steps} "
                 f"steps (seed {SEED})",
                 interleaved(SEED, steps), plain_full=False),
        Scenario("d", "38 e1000 at once, on pci.0 and behind two pci-bridges",
                 crowd_ops, plain_full=False, qemu_args=bridges),
    ] + [
        Scenario(name, f"{driver}: up to 10 at once, churned, re-plugged (seed {SEED})",
                 matrix(driver, SEED), plain_full=False)
        for name, driver in (("e", "pcnet32"), ("f", "tulip"), ("g", "ne2k-pci"))
    ]
