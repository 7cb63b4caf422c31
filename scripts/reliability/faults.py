# SPDX-License-Identifier: GPL-2.0
"""Fault injection in probe: the N-th allocation of a bind fails.

  reliability/faults.py [--drivers e1000,e1000e] [--max-n 400]

For N = 1, 2, ... the guest writes N to /proc/thread-self/fail-nth and
binds the NIC under test through sysfs, from the same thread, so that
the N-th fault-injectable step of that bind fails (failslab, with
GFP_KERNEL allocations included). The bind file is opened first, so the
steps counted are those of the write that binds: the sysfs buffer, then
the probe. The loop ends at the first N that the bind never reached: a
bind that succeeded untouched. Every N that hit is a failure point; the
kernel's stack for each injected fault names its call site.

After each failed bind, the same NIC binds cleanly and must get the
right number and values: board 0, which it owns since its first,
hot-plug bind, and slot 0's values, every round. Nothing leaked (a
number the failed probe kept would push it onto another number) and
nothing claimed: the NIC owns a slot already, so the probe that failed
may own no other (where the console shows the number the failed probe
took, it must be board 0). The NIC is then unbound (its number is free again, and
still its own) and a spare NIC hot-added, which owns no slot: it must
take the lowest free number no board owns, and that slot's values, so
that a slot the failed probe claimed shows as a number skipped. The
spares stay, each on its own number: in round i spare i gets board i,
whose values no earlier bind touched. After as many rounds as a boot has
spare NICs, the guest is booted again. No WARNING or BUG may appear;
the one stack the kernel prints for each fault it injects on purpose is
expected. (PCI binds every hot-added device at once, whatever
drivers_autoprobe says, so an unbound NIC can only be had by unbinding
it.)

The plain kernel fails where it always did: the clean bind after the
first failure gets a new number, and that number's values.
"""

from __future__ import annotations

import argparse
import re
import time
from collections import Counter
from dataclasses import dataclass, field

from guest import hotplug
from guest.machine import Guest
from guest.session import Kernel, boot, finish, side_by_side
from lib import results
from lib.common import Failure, config, main_guard
from model.check import logged_number
from model.model import DRIVERS, Model
from model.verdict import Tally, Verdict, pair
from reliability.common import TIMEOUT, check_add, cmdline, kernels, records, report

# NICs per boot, on pci.0 slots 3..: the one under test, then spares.
PER_BOOT = 24
SETUP = """killall nicwatch
echo N > /sys/kernel/debug/failslab/ignore-gfp-wait
echo 2 > /sys/kernel/debug/failslab/verbose
bound() {{ test -e /sys/bus/pci/devices/$1/driver && echo 1 || echo 0; }}
show() {{
	w=0
	while [ ! -d /sys/bus/pci/devices/$1/net ] && [ $w -lt 300 ]; do sleep 0.1; w=$((w + 1)); done
	nicwatch show "$(ls /sys/bus/pci/devices/$1/net)"
}}
fault_bind() {{
	exec 3>/sys/bus/pci/drivers/$1/bind 4>/proc/thread-self/fail-nth 5</proc/thread-self/fail-nth
	echo $3 >&4
	echo -n $2 >&3
	rc=$?
	read left <&5
	# Disarm what the bind did not use up, before the shell allocates.
	echo 0 >&4
	exec 3>&- 4>&- 5>&-
	echo "FI n=$3 rc=$rc left=$left bound=$(bound $2)"
}}
"""
FI = re.compile(r"FI n=(\d+) rc=(\d+) left=(\d+) bound=([01])")
# The last line of a good probe, e1000's and e1000e's alike ("e1000
# 0000:00:1a.0 eth22: Intel(R) PRO/1000 Network Connection").
PROBE_DONE = r"Intel\(R\) PRO/1000 Network Connection"
# The first frame of an injected fault's stack that is not the allocator's.
ALLOCATOR = re.compile(r"should_fail|failslab|fail_dump|dump_stack|kmalloc|kmem_cache|"
                       r"slab_|__kvmalloc|kvmalloc|kzalloc|kstrdup|kvasprintf|"
                       r"kmemdup|krealloc|__alloc|alloc_hooks|show_stack")
FRAME = re.compile(r"^\s*(?:\[[\s\d.]+\]\s*)?(?:\?\s*)?([A-Za-z_][\w.]*)\+0x")


@dataclass
class Points:
    """What the injected faults hit, over every N of one driver."""
    hit: list[int] = field(default_factory=list)  # N that injected a fault
    failed: list[int] = field(default_factory=list)  # ... and failed the bind
    sites: Counter[str] = field(default_factory=Counter)
    last: int = 0  # the N that no longer hit: the untouched bind


def call_site(lines: list[str]) -> str | None:
    inside = False
    for line in lines:
        if "FAULT_INJECTION: forcing a failure" in line:
            inside = True
        elif inside:
            m = FRAME.search(line)
            if m and not ALLOCATOR.search(m.group(1)):
                return m.group(1)
    return None


class Driver:
    """One driver's rounds on one kernel, across as many boots as needed."""

    def __init__(self, kernel: Kernel, driver: str, max_n: int) -> None:
        self.kernel, self.driver, self.max_n = kernel, driver, max_n
        self.tally, self.points = Tally(), Points()
        self.boots = 0

    def run(self) -> None:
        n = 1
        stop_early = self.kernel.flavour == "plain"
        while n <= self.max_n:
            n, done = self.boot_and_run(n)
            if done or (stop_early and self.tally.violations):
                return
        self.tally.notes.append(f"{self.driver}: bind still hit a fault at N={self.max_n}")

    def boot_and_run(self, n: int) -> tuple[int, bool]:
        self.boots += 1
        # acpi=noirq: PCI interrupts are routed through the BIOS's $PIR
        # table, so that enabling the device does not run the ACPI
        # interpreter, whose own allocation failures are not what this
        # tests (a failed copy while evaluating _PRT dereferences NULL).
        guest = boot(self.kernel, f"faults-{self.driver}-{self.boots}",
                     cmdline((self.driver,)) + ["acpi=noirq"])
        try:
            _, rc = guest.shell(SETUP.format(), TIMEOUT)
            if rc:
                raise Failure(f"fault-injection setup failed in the guest ({rc})")
            model = Model()
            nic = self.plug(guest, model, 0, n)
            guest.shell(f"echo -n {nic} > /sys/bus/pci/drivers/{self.driver}/unbind",
                        TIMEOUT)
            model.remove(self.driver, nic)
            for spare in range(1, PER_BOOT):
                n, done = self.round(guest, model, nic, spare, n)
                if done or self.tally.violations or n > self.max_n:
                    return n, done
            return n, False
        finally:
            finish(guest, self.kernel, self.tally)

    def added(self, guest: Guest, model: Model, pci: str, lines: list[str],
              cycle: int) -> None:
        """Check the bind of @pci, with the agent's read-back of it. The
        agent is asked (show), not listened to: a fault in the kernel's
        link notification would leave a listener without news."""
        more, rc = guest.shell(f"show {pci}", TIMEOUT)
        got = records(more)
        if rc or not got:
            self.tally.notes.append(f"N={cycle}: no read-back of {pci} ({rc})")
            return
        self.tally.probes.append(check_add(model, self.driver, pci, lines + more,
                                           got[-1][1], cycle))

    def plug(self, guest: Guest, model: Model, slot: int, cycle: int) -> str:
        """Hot-add a NIC at slot 3 + @slot and check it through the agent's
        read-back (added()), as every bind here is. device_add returns
        once QEMU has the device, before the guest's ACPI hot-plug handler
        has probed it: the read-back waits for the end of that NIC's probe
        on the console (the driver's last line, or the driver core's
        failure) first. The agent is not listening here, so its own line
        does not come. (Asked at once, the agent once found no interface
        yet, in a make check whose two bisects slowed the guest.)"""
        pci = f"0000:00:{3 + slot:02x}.0"
        probe = hotplug.add(guest, DRIVERS[self.driver].device, f"nic{slot}",
                            rf"{re.escape(pci)} \S+: {PROBE_DONE}|"
                            rf"{re.escape(pci)}: probe with driver \S+ failed",
                            TIMEOUT, bus="pci.0", addr=hex(3 + slot))
        # The probe's kernel lines (board number, ignored parameters) are
        # in what the wait read.
        self.added(guest, model, pci, probe.lines, cycle)
        return pci

    def round(self, guest: Guest, model: Model, nic: str, spare: int,
              n: int) -> tuple[int, bool]:
        """Fail the N-th step of binding @nic; then bind it cleanly, unbind
        it, and hot-add spare NIC @spare, which must skip the number the
        NIC owns (and any the failed probe claimed)."""
        lines, _ = guest.shell(f"fault_bind {self.driver} {nic} {n}", TIMEOUT)
        m = next((FI.search(line) for line in reversed(lines) if FI.search(line)), None)
        if not m:
            raise Failure(f"no result line for N={n} (see {guest.console_log})")
        hit, bound = m.group(3) == "0", m.group(4) == "1"
        if hit:
            self.points.hit.append(n)
            site = call_site(lines)
            if site:
                self.points.sites[site] += 1
        if bound:
            # Untouched, or the driver got over the failure: a good bind.
            self.added(guest, model, nic, lines, n)
        else:
            self.points.failed.append(n)
            # The failed probe's number, if it took one, is free again;
            # the NIC owns it if it was the first to take it. Where the
            # console shows the number, it must be the NIC's own.
            expected = model.add(self.driver, nic)
            took = logged_number(self.driver, nic, lines)
            model.forget(self.driver, nic, took)
            if took is not None and took != expected.number:
                self.tally.mismatches.append(f"N={n}: the failed bind took board "
                                             f"{took}, model {expected.number}")
            lines, rc = guest.shell(
                f"echo -n {nic} > /sys/bus/pci/drivers/{self.driver}/bind", TIMEOUT)
            if rc:
                self.tally.notes.append(f"N={n}: clean bind of {nic} failed ({rc})")
                return n + 1, True
            self.added(guest, model, nic, lines, n)
        if not hit:
            # The bind ran all its steps untouched: N is past the last point.
            self.points.last = n
            return n + 1, True
        # Give the number back through a bound board's unbind, and let a
        # spare take a number: the lowest free one nobody owns, its values.
        guest.shell(f"echo -n {nic} > /sys/bus/pci/drivers/{self.driver}/unbind", TIMEOUT)
        model.remove(self.driver, nic)
        self.plug(guest, model, spare, n)
        return n + 1, False


def run(kernels_: dict[str, Kernel], drivers: tuple[str, ...] = ("e1000", "e1000e"),
        max_n: int = 400) -> list[Verdict]:
    rows: list[Verdict] = []
    for driver in drivers:
        def one(kernel: Kernel, driver: str = driver) -> tuple[Driver, float]:
            began = time.monotonic()
            rounds = Driver(kernel, driver, max_n)
            rounds.run()
            return rounds, time.monotonic() - began

        ran = side_by_side(one, kernels_)
        patched, seconds = ran["patched"]
        plain = ran["plain"][0] if "plain" in ran else None
        p = patched.points
        sites = ", ".join(f"{s} x{c}" for s, c in p.sites.most_common(6))
        detail = (f"{len(p.hit)} failure points hit (N=1..{p.last - 1}), "
                  f"{len(p.failed)} failed the bind, {len(p.sites)} call sites "
                  f"({sites}{', ...' if len(p.sites) > 6 else ''}); "
                  f"{len(patched.tally.probes)} binds checked, {patched.boots} boots, "
                  f"{seconds:.0f}s")
        rows += pair(f"faults-{driver}", patched.tally, plain.tally if plain else None, detail,
                     extra_ok=p.last > 0)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--drivers", default="e1000,e1000e")
    parser.add_argument("--max-n", type=int, default=400)
    parser.add_argument("--flavours", default="patched,plain",
                        help="the kernels to run: patched, or patched,plain "
                        "(make mutants runs its mutated kernel alone)")
    args = parser.parse_args()
    cfg = config()
    rows = run(kernels(cfg, flavours=tuple(args.flavours.split(","))),
               drivers=tuple(args.drivers.split(",")), max_n=args.max_n)
    # Saved apart from the reliability stage's record, for make mutants.
    results.save(cfg, "faults", rows)
    return report(rows)


if __name__ == "__main__":
    main_guard(main)
