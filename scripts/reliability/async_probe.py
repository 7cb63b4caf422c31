# SPDX-License-Identifier: GPL-2.0
"""Asynchronous probing at scale: 40 NICs probed at once, at boot.

  reliability/async_probe.py

34 e1000 and 6 e1000e are cold-plugged, over pci.0 and two pci-bridges,
and the guest boots with driver_async_probe=e1000,e1000e on two vCPUs, so
their probes run concurrently (e1000 during boot, e1000e when /init loads
the module). On the plain kernel every probe reads the static counter
before any of them bumps it, so boards share numbers (all of them got
board 0 when this was first seen) and with them slot 0's parameters.

Checks, per driver: the numbers are unique and exactly {0..n-1}; every
board reports the values of its number's slot (defaults from 32 on); the
driver's "no configuration for board #N" warning appears for exactly the
boards numbered 32 and up; and the kernel reports no trouble.
"""

from __future__ import annotations

import argparse
import time

from guest.session import Kernel, boot, finish, side_by_side
from lib.common import config, main_guard
from model.check import Probe, check
from model.model import DRIVERS, Expected
from model.verdict import Tally, Verdict, pair
from reliability.common import cmdline, cold_plugged, kernels, records, report

COUNTS = {"e1000": 34, "e1000e": 6}
BRIDGES = ["-device", "pci-bridge,id=br1,chassis_nr=1,bus=pci.0,addr=0x1e",
           "-device", "pci-bridge,id=br2,chassis_nr=2,bus=pci.0,addr=0x1f"]


def layout() -> list[str]:
    """QEMU arguments: 27 NICs on pci.0 (slots 3-29), 7 on br1, 6 on br2,
    e1000 and e1000e interleaved so that both drivers use every bus."""
    drivers = [d for d, n in COUNTS.items() for _ in range(n)]
    # Spread the e1000e out: one in every 6-7 NICs.
    order = sorted(range(len(drivers)), key=lambda i: (i % 7, i))
    drivers = [drivers[i] for i in order]
    places = ([("pci.0", a) for a in range(3, 30)] +
              [("br1", a) for a in range(1, 8)] + [("br2", a) for a in range(1, 7)])
    args = list(BRIDGES)
    for i, (driver, (bus, addr)) in enumerate(zip(drivers, places)):
        args += ["-device", f"{DRIVERS[driver].device},id=nic{i},bus={bus},"
                 f"addr={addr:#x}"]
    return args


def judge(lines: list[str], tally: Tally) -> None:
    """Check every reported NIC; numbers come from the driver's messages."""
    seen: dict[str, list[Probe]] = {d: [] for d in COUNTS}
    for _, fields in records(lines):
        driver = str(fields.get("driver"))
        if driver not in seen:
            continue
        # Which number a board got is the driver's to say (probes run in
        # any order); the model then says what that number must bring.
        probe = check(driver, str(fields.get("bus")), Expected(-1, {}, False),
                      fields, lines)
        number = probe.number if probe.number is not None else -1
        spec = DRIVERS[driver]
        expected = Expected(number, dict(spec.reported(number)
                                         if 0 <= number < spec.slots else
                                         spec.defaults), number >= spec.slots)
        probe = check(driver, str(fields.get("bus")), expected, fields, lines,
                      cycle=len(tally.probes) + 1)
        if probe.number is None:
            probe.violation = probe.violation or "no board number shows"
        tally.probes.append(probe)
        seen[driver].append(probe)
    for driver, probes in seen.items():
        numbers = sorted(p.number for p in probes if p.number is not None)
        if len(probes) != COUNTS[driver]:
            tally.notes.append(f"{driver}: {len(probes)} NICs reported, "
                               f"{COUNTS[driver]} plugged")
        elif numbers != list(range(COUNTS[driver])):
            dup = sorted({n for n in numbers if numbers.count(n) > 1})
            tally.mismatches.append(f"{driver} numbers are not 0..{COUNTS[driver] - 1}"
                                    f" (shared: {dup[:5]})")


def run_one(kernel: Kernel) -> tuple[Tally, float]:
    began = time.monotonic()
    params = cmdline() + ["driver_async_probe=e1000,e1000e"]
    guest = boot(kernel, "async", params, layout() + ["-smp", "2"], timeout=300)
    tally = Tally()
    try:
        judge(cold_plugged(guest, sum(COUNTS.values()), 300), tally)
    finally:
        finish(guest, kernel, tally)
    return tally, time.monotonic() - began


def run(kernels_: dict[str, Kernel]) -> list[Verdict]:
    ran = side_by_side(run_one, kernels_)
    patched, seconds = ran["patched"]
    plain = ran["plain"][0] if "plain" in ran else None
    detail = (f"{len(patched.probes)} NICs probed asynchronously, numbers "
              f"e1000 0..{COUNTS['e1000'] - 1}, e1000e 0..{COUNTS['e1000e'] - 1}, "
              f"warning for boards 32, 33 only; boot to last probe {seconds:.0f}s")
    return pair("async-40", patched, plain, detail)


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()
    rows = run(kernels(config()))
    return report(rows)


if __name__ == "__main__":
    main_guard(main)
