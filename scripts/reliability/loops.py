# SPDX-License-Identifier: GPL-2.0
"""In-guest loops, without QMP: sysfs unbind/bind and PCI remove/rescan.

  reliability/loops.py [--binds 1000] [--rescans 200]

Two e1000 and two e1000e are cold-plugged. In one boot, a shell loop in
the guest (no QMP, no hot-plug) first runs --binds unbind/bind cycles:
in each round it unbinds both NICs of one driver and binds them again in
the other order, so that every other round the NIC that owns the higher
number binds first, with the lower one free; then
--rescans remove/rescan cycles: both NICs of a driver are removed
through sysfs and come back with a bus rescan. Each bind is followed by
the agent's read-back of that NIC ("nicwatch show"), and the host checks
every one against the reference model: each NIC owns the number it took
at boot, and must get it back, with its slot's values, whatever the
order it binds in. A cycle is one NIC unbound and bound again, or
removed and found again.
"""

from __future__ import annotations

import argparse
import time

from guest.session import Kernel, boot, finish, side_by_side
from lib.common import config, main_guard
from model.model import Model
from model.verdict import Tally, Verdict, pair
from reliability.common import (
    check_add, cmdline, cold_plugged, kernels, records, report
)

# Two NICs per driver, cold-plugged; e1000e is probed when /init loads it.
NICS = [("e1000", "0000:00:03.0"), ("e1000", "0000:00:04.0"),
        ("e1000e", "0000:00:05.0"), ("e1000e", "0000:00:06.0")]
QEMU = [arg for i, (driver, _) in enumerate(NICS)
        for arg in ("-device", f"{driver},id=nic{i},bus=pci.0,addr={i + 3:#x}")]

# The guest side: show() prints the agent's line for the NIC at a PCI
# address (the agent started by /init is stopped, so that each bind is
# reported once, by the loop, right after it); each round prints a LOOP
# line, so that a stall shows where it happened.
SHOW = """killall nicwatch
show() { nicwatch show "$(ls /sys/bus/pci/devices/$1/net)"; }
"""


def bind_script(rounds: int) -> str:
    (d1, a1), (_, b1), (d2, a2), (_, b2) = NICS
    return SHOW + f"""r=0
while [ $r -lt {rounds} ]; do
	if [ $((r % 2)) -eq 0 ]; then drv={d1} a={a1} b={b1}; else drv={d2} a={a2} b={b2}; fi
	echo -n $a > /sys/bus/pci/drivers/$drv/unbind
	echo -n $b > /sys/bus/pci/drivers/$drv/unbind
	if [ $((r / 2 % 2)) -eq 0 ]; then first=$b second=$a; else first=$a second=$b; fi
	echo -n $first > /sys/bus/pci/drivers/$drv/bind && show $first
	echo -n $second > /sys/bus/pci/drivers/$drv/bind && show $second
	r=$((r + 1))
	echo "LOOP bind round=$r"
done
"""


def rescan_script(rounds: int) -> str:
    (d1, a1), (_, b1), (d2, a2), (_, b2) = NICS
    return f"""r=0
while [ $r -lt {rounds} ]; do
	if [ $((r % 2)) -eq 0 ]; then a={a1} b={b1}; else a={a2} b={b2}; fi
	echo 1 > /sys/bus/pci/devices/$a/remove
	echo 1 > /sys/bus/pci/devices/$b/remove
	echo 1 > /sys/bus/pci/rescan && show $a && show $b
	r=$((r + 1))
	echo "LOOP rescan round=$r"
done
"""


def expect_binds(rounds: int) -> list[tuple[str, str, str]]:
    """Model the bind rounds: the ("del" or "add", driver, pci) of each
    unbind and bind, in order."""
    (d1, a1), (_, b1), (d2, a2), (_, b2) = NICS
    order: list[tuple[str, str, str]] = []
    for r in range(rounds):
        drv, a, b = (d1, a1, b1) if r % 2 == 0 else (d2, a2, b2)
        first, second = (b, a) if r // 2 % 2 == 0 else (a, b)
        order += [("del", drv, a), ("del", drv, b), ("add", drv, first),
                  ("add", drv, second)]
    return order


def expect_rescans(rounds: int) -> list[tuple[str, str, str]]:
    """Model the rescan rounds, as expect_binds() the bind rounds."""
    (d1, a1), (_, b1), (d2, a2), (_, b2) = NICS
    order: list[tuple[str, str, str]] = []
    for r in range(rounds):
        drv, a, b = (d1, a1, b1) if r % 2 == 0 else (d2, a2, b2)
        # A rescan finds (and binds) them in bus order.
        order += [("del", drv, a), ("del", drv, b), ("add", drv, a), ("add", drv, b)]
    return order


def replay(model: Model, steps: list[tuple[str, str, str]], lines: list[str],
           tally: Tally, cycle0: int) -> int:
    """Check the binds the guest reported against the modelled @steps."""
    got = records(lines)
    adds = [s for s in steps if s[0] == "add"]
    if len(got) != len(adds):
        tally.notes.append(f"{len(got)} binds reported, {len(adds)} run")
    it = iter(got)
    cycle = cycle0
    # A rescan probes both NICs before the first read-back: the second
    # NIC's messages come before the first one's agent line. So each add
    # is checked against every line since the round's removals (check()
    # keeps the lines of its own PCI address).
    round_lines: list[str] = []
    for kind, driver, pci in steps:
        if kind == "del":
            model.remove(driver, pci)
            round_lines = []
            continue
        chunk = next(it, None)
        if chunk is None:
            break
        cycle += 1
        lines_, fields = chunk
        round_lines += lines_
        probe = check_add(model, driver, pci, round_lines, fields, cycle)
        if fields.get("bus") != pci:
            probe.violation = probe.violation or f"bind of {pci} reported {fields.get('bus')}"
        tally.probes.append(probe)
        if probe.violation:
            break  # the model and the kernel part ways: nothing after counts
    return cycle


def run_one(kernel: Kernel, binds: int, rescans: int) -> tuple[Tally, dict[str, float]]:
    guest = boot(kernel, "loops", cmdline(), QEMU)
    tally, times = Tally(), {}
    model = Model()
    try:
        # The four cold-plugged NICs, in the order they were probed.
        lines = cold_plugged(guest, len(NICS), 120)
        for (_, fields), (driver, pci) in zip(records(lines), NICS):
            tally.probes.append(check_add(model, driver, pci, lines, fields, 0))
        began = time.monotonic()
        lines, rc = guest.shell(bind_script(binds // 2), timeout=60 + 3.0 * binds)
        times["bind"] = time.monotonic() - began
        cycle = replay(model, expect_binds(binds // 2), lines, tally, 0)
        began = time.monotonic()
        lines, rc2 = guest.shell(rescan_script(rescans // 2), timeout=60 + 5.0 * rescans)
        times["rescan"] = time.monotonic() - began
        if not tally.violations:
            replay(model, expect_rescans(rescans // 2), lines, tally, cycle)
        if rc or rc2:
            tally.notes.append(f"guest loop exit status {rc}/{rc2}")
    finally:
        finish(guest, kernel, tally)
    return tally, times


def run(kernels_: dict[str, Kernel], binds: int | None = None,
        rescans: int | None = None) -> list[Verdict]:
    # The debug kernel's long run is the e2e soak (make check-debug); a
    # fifth of the loops there still brings every path under its checkers.
    scale = 5 if kernels_["patched"].variant else 1
    # None: the default; 0 is a count like any other (no cycles).
    n_binds = 1000 // scale if binds is None else binds
    n_rescans = 200 // scale if rescans is None else rescans
    # The plain kernel breaks the model in the first round: a short run
    # of each loop shows it.
    ran = side_by_side(
        lambda k: (run_one(k, n_binds, n_rescans) if k.flavour == "patched" else
                   run_one(k, min(n_binds, 20), min(n_rescans, 10))), kernels_)
    patched, times = ran["patched"]
    plain = ran["plain"][0] if "plain" in ran else None
    detail = (f"{n_binds} unbind/bind cycles in {times.get('bind', 0):.0f}s, "
              f"{n_rescans} remove/rescan cycles in {times.get('rescan', 0):.0f}s, "
              f"{len(patched.probes)} binds checked")
    return pair("loops", patched, plain, detail)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--binds", type=int, default=1000)
    parser.add_argument("--rescans", type=int, default=200)
    args = parser.parse_args()
    rows = run(kernels(config()), binds=args.binds, rescans=args.rescans)
    return report(rows)


if __name__ == "__main__":
    main_guard(main)
