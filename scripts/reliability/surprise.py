# SPDX-License-Identifier: GPL-2.0
"""Surprise removal under traffic: a NIC goes away while frames flow.

  reliability/surprise.py [--cycles 50] [--seed 20041917]

Two e1000 NICs share a QEMU-internal hub (-netdev hubport, hubid 0: the
hub forwards a frame to its other ports and nowhere else, so nothing
leaves QEMU). In the guest, hubtraffic (scripts/guest/agent/hubtraffic.c)
sends broadcast frames out of both every millisecond or so and counts
what each receives, which can only have come through the hub from the
other NIC. Each cycle the host checks that frames flow both ways,
device_dels one NIC (seeded choice) without stopping the traffic, waits
for DEVICE_DELETED and the agent's "NICWATCH del" line, device_adds it
again on the same slot and hub port (guest/hotplug.py; the traffic
counters read what its waits read), checks the probe against the
reference model (model/model.py: the board, back in its place, owns the
number it took first and gets it back, with its slot's values), and
checks that frames flow to and from the new interface. Any kernel
trouble (BUG, WARNING, Oops, Call Trace, ...) fails the patched run.

"Surprise" is as close as QEMU gets: ACPI PCI hot-unplug on i440fx is
cooperative (the guest's acpiphp unbinds the driver and ejects the slot),
so it is not a yanked card but a driver removal with frames in flight:
the generator keeps sending on the interface until it is gone, and the
sends that meet a vanishing device are counted (errors=), not fatal.

The plain kernel is the negative control: its e1000 takes a new number
on every re-add (2, 3, ...) and with it that number's slot values, which
the model flags; its run stops at the first violation. Consoles are in
build/rel/surprise-<kernel>/console.log. The generator is in the
initramfs of every reliability.common.kernels() guest.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from dataclasses import dataclass, field

from guest import agent, hotplug, hubtraffic
from guest.machine import Guest
from guest.qmp import QMPError, QMPTimeout
from guest.session import Kernel, boot, finish, side_by_side
from lib.common import Failure, config, main_guard
from model.check import Probe
from model.model import DRIVERS, Model
from model.verdict import Tally, Verdict, pair
from reliability import common as rel_common
from reliability.common import TIMEOUT

DRIVER = "e1000"
SEED = 20041917
# Link-up of a fresh e1000 (QEMU's autonegotiation, the driver's 2 s
# watchdog, linkwatch) and two reports of the generator fit well inside.
FLOW_TIMEOUT = 30.0
SHELL_TIMEOUT = 20.0
# The generator's send interval and report period (see hubtraffic.c).
INTERVAL_US = 1000
REPORT_MS = 250
HUB = ["-netdev", "hubport,id=h0,hubid=0", "-netdev", "hubport,id=h1,hubid=0"]


@dataclass(frozen=True)
class Nic:
    device: str  # the QMP id, the same on every re-add
    netdev: str  # its hub port
    addr: int  # its slot on pci.0

    @property
    def pci(self) -> str:
        return f"0000:00:{self.addr:02x}.0"


# Board A takes number 0, board B number 1.
NICS = (Nic("hubA", "h0", 0x4), Nic("hubB", "h1", 0x5))


class Console:
    """The guest's console, every line of which passes the counters."""

    def __init__(self, guest: Guest) -> None:
        self.guest = guest
        self.counters = hubtraffic.Counters()

    def collect(self, pattern: str,
                timeout: float) -> tuple[list[str], re.Match[str]]:
        lines, m = self.guest.collect_until(pattern, timeout)
        self.counters.feed(lines)
        return lines, m

    def shell(self, command: str, timeout: float = SHELL_TIMEOUT) -> tuple[list[str], int]:
        lines, rc = self.guest.shell(command, timeout)
        self.counters.feed(lines)
        return lines, rc

    def flowing(self, ifindexes: list[int], timeout: float = FLOW_TIMEOUT) -> None:
        """Wait until each interface's recv grows between two of its
        reports from now on: frames are arriving at it through the hub."""
        first: dict[int, int] = {}
        waiting = set(ifindexes)
        deadline = time.monotonic() + timeout
        while waiting:
            try:
                lines, _ = self.collect(r"HUBTRAFFIC ifindex=",
                                        max(deadline - time.monotonic(), 0.01))
            except Failure:
                if self.guest.proc.poll() is not None:
                    raise  # QEMU is gone: that is the news
                seen = [self.counters.latest.get(i) for i in sorted(waiting)]
                raise Failure(f"no frames arriving at ifindex {sorted(waiting)} "
                              f"within {timeout}s; latest reports {seen}; "
                              f"generator notes {self.counters.notes[-3:]}") from None
            for report in filter(None, map(hubtraffic.parse, lines)):
                if report.ifindex not in waiting:
                    continue
                if report.state == "gone":
                    raise Failure(f"{report.name} (ifindex {report.ifindex}) "
                                  "vanished while frames were awaited")
                if report.ifindex in first and report.recv > first[report.ifindex]:
                    waiting.discard(report.ifindex)
                first.setdefault(report.ifindex, report.recv)


def add(con: Console, model: Model, nic: Nic, cycle: int) -> tuple[Probe, int]:
    """Hot-add @nic on its hub port; its probe checked, and its ifindex.
    The generator's reports among the lines read go to the counters."""
    added = hotplug.add(con.guest, DRIVERS[DRIVER].device, nic.device, hotplug.AGENT_ADD,
                        TIMEOUT, bus="pci.0", addr=hex(nic.addr), netdev=nic.netdev)
    con.counters.feed(added.lines)
    fields = agent.parse_add(added.match.group(0)) or {}
    if fields.get("bus") != nic.pci:
        # Not the board just added: the harness, not the kernel, is lost.
        raise Failure(f"agent reported {fields.get('bus')} after adding {nic.pci}")
    probe = rel_common.check_add(model, DRIVER, nic.device, added.lines, fields, cycle)
    probe.seconds = added.seconds
    return probe, int(fields["ifindex"])


def remove(con: Console, model: Model, nic: Nic, ifindex: int) -> None:
    """device_del @nic with the traffic running, until it is gone: its
    DEVICE_DELETED, and the agent's del line of its interface. The
    generator's reports read meanwhile go to the counters."""
    removed = hotplug.remove(con.guest, nic.device, TIMEOUT,
                             gone=rf"NICWATCH del ifindex={ifindex} ")
    con.counters.feed(removed.lines)
    model.remove(DRIVER, nic.device)


@dataclass
class Outcome:
    """One kernel's run: its probes, figures and what went wrong."""
    kernel: str
    tally: Tally = field(default_factory=Tally)
    cycles: int = 0  # cycles completed, traffic checked after the re-add
    seconds: list[float] = field(default_factory=list)  # per cycle
    removed: dict[str, int] = field(default_factory=dict)  # per NIC
    frames: tuple[int, int, int] = (0, 0, 0)  # sent, received, failed sends
    last_words: list[tuple[int, int]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # harness, not model
    wall: float = 0.0

    def figures(self) -> str:
        sent, recv, failed = self.frames
        removed = ", ".join(f"{k} {v}x" for k, v in sorted(self.removed.items()))
        text = (f"{self.cycles} cycles ({removed or 'none removed'}), "
                f"{len(self.tally.probes)} probes; frames sent {sent}, "
                f"received {recv}, {failed} sends failed")
        if self.last_words:
            # What the generator still sent on each NIC in the report
            # period its removal fell in: the removal met traffic.
            frames = [f for f, _ in self.last_words]
            text += (f"; at removal {min(frames)}-{max(frames)} frames sent in "
                     f"the last {REPORT_MS} ms, sends failing in "
                     f"{sum(1 for _, e in self.last_words if e)} of "
                     f"{len(self.last_words)} removals")
        if self.seconds:
            text += f"; {statistics.mean(self.seconds):.2f}s per cycle"
        return text + f", {self.wall:.0f}s wall"


def cycles_on(con: Console, out: Outcome, cycles: int, seed: int,
              stop_early: bool) -> None:
    """The hot-plug cycles under traffic; @out fills as they go."""
    model = Model()
    _, rc = con.shell("test -x /bin/hubtraffic")
    if rc != 0:
        raise Failure("the initramfs has no /bin/hubtraffic")
    lines, _ = con.shell(f"hubtraffic {DRIVER} {INTERVAL_US} {REPORT_MS} & "
                         "echo HUBPID=$!")
    pid = next((m.group(1) for line in lines
                if (m := re.search(r"HUBPID=(\d+)", line))), None)
    if pid is None:
        raise Failure(f"hubtraffic did not start: {lines}")
    ifindex: dict[str, int] = {}  # device id -> its current interface
    for nic in NICS:
        probe, ifindex[nic.device] = add(con, model, nic, 0)
        out.tally.probes.append(probe)
        if probe.violation:
            return
    con.flowing(list(ifindex.values()))
    rng = random.Random(seed)
    for cycle in range(1, cycles + 1):
        began = time.monotonic()
        victim = rng.choice(NICS)
        other = next(n for n in NICS if n is not victim)
        # Both ways right now, so the removal meets frames in flight.
        con.flowing([ifindex[victim.device], ifindex[other.device]])
        remove(con, model, victim, ifindex[victim.device])
        out.removed[victim.device] = out.removed.get(victim.device, 0) + 1
        probe, ifindex[victim.device] = add(con, model, victim, cycle)
        out.tally.probes.append(probe)
        mark = f"VIOLATION {probe.violation}" if probe.violation else "ok"
        print(f"  surprise {out.kernel:7} cycle {cycle:3} {victim.device} "
              f"board {probe.number} (model {probe.expected_number}) "
              f"{probe.observed} {mark}", flush=True)
        if probe.violation and stop_early:
            return
        con.flowing([ifindex[victim.device], ifindex[other.device]])
        out.seconds.append(time.monotonic() - began)
        out.cycles = cycle
        if con.guest.trouble:
            return
    _, rc = con.shell(f"kill -0 {pid}")
    if rc != 0:
        out.errors.append("hubtraffic exited during the run")


def surprise(kernel: Kernel, cycles: int, seed: int) -> Outcome:
    """One kernel: boot with the hub, run the cycles, collect the figures."""
    out = Outcome(kernel.name)
    began = time.monotonic()
    try:
        guest = boot(kernel, "surprise", rel_common.cmdline((DRIVER,)),
                                qemu_args=HUB)
    except (Failure, QMPError, QMPTimeout) as err:
        out.errors.append(f"boot: {err}")
        return out
    con = Console(guest)
    try:
        cycles_on(con, out, cycles, seed, stop_early=kernel.flavour == "plain")
    except (Failure, QMPError, QMPTimeout) as err:
        out.errors.append(str(err))
    finally:
        out.frames = con.counters.totals()
        out.last_words = con.counters.last_words
        out.errors += con.counters.notes[:3]
        try:
            # Stops the guest, after a kmemleak scan on the debug kernel;
            # notes the kernel's reports of trouble in the tally.
            finish(guest, kernel, out.tally)
        except (Failure, QMPError, QMPTimeout) as err:
            out.errors.append(f"finish: {err}")
        out.wall = time.monotonic() - began
    return out


def verdicts(patched: Outcome, plain: Outcome | None, cycles: int) -> list[Verdict]:
    """The patched row and the plain control's, pair()'s: what went wrong
    in the harness (a QMP timeout, the generator gone) is each run's
    notes, and a patched run cut short says how far it got."""
    tally = patched.tally
    tally.notes += patched.errors
    if patched.cycles < cycles and not tally.notes and not tally.violations:
        tally.notes.append(f"only {patched.cycles} of {cycles} cycles ran")
    control = None
    if plain is not None:
        control = plain.tally
        control.notes += plain.errors
    return pair("surprise", tally, control, patched.figures())


def run(kernels: dict[str, Kernel], cycles: int = 50,
        seed: int = SEED) -> list[Verdict]:
    """The patched run and the plain one (those in @kernels)."""
    outcomes = side_by_side(lambda kernel: surprise(kernel, cycles, seed), kernels)
    return verdicts(outcomes["patched"], outcomes.get("plain"), cycles)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cycles", type=int, default=50)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    rows = run(rel_common.kernels(config()), cycles=args.cycles, seed=args.seed)
    return rel_common.report(rows)


if __name__ == "__main__":
    main_guard(main)
