"""What the reliability runs (rel_*.py) share: kernels, boots, verdicts.

Each run boots the patched guest kernel and the plain one (the negative
control) with the e2e boot parameters (every slot given distinct values,
see e2e_model.py), drives the failure paths it is about, and checks every
probe against the reference model with e2e_check.check(). A run returns
its verdicts: (name, passed, detail) rows, printed by reliability.py.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import agent
import guest_kernel
import hubtraffic
import initramfs
import results
from common import BUILD, Failure
from e2e_check import Probe, check
from e2e_model import DRIVERS, Model
from guest import Guest

OUT = BUILD / "rel"
TIMEOUT = 60.0
FLAVOURS = ("patched", "plain")
Verdict = tuple[str, bool, str]


@dataclass(frozen=True)
class Kernel:
    flavour: str
    image: Path
    initrd: Path
    variant: str | None = None

    @property
    def name(self) -> str:
        return f"{self.flavour}-{self.variant}" if self.variant else self.flavour


def kernels(variant: str | None = None,
            flavours: tuple[str, ...] = FLAVOURS) -> dict[str, Kernel]:
    """The guest kernels and their initramfs, with the agent (which brings
    e1000 up) and the traffic generator of rel_surprise.py."""
    nicwatch = agent.build().read_bytes()
    extra = {"bin/hubtraffic": hubtraffic.build().read_bytes()}
    # e1000 comes up for rel_surprise.py's frames; not on the debug kernel,
    # which does not run it and whose acpi=noirq routes the cold-plugged
    # NICs' interrupts through $PIR onto a line their link-up interrupts
    # then flood ("irq 11: nobody cared").
    up = sorted(({"e1000"} if not variant else set()) |
                {d.name for d in DRIVERS.values() if d.up})
    result = {}
    for flavour in flavours:
        built = guest_kernel.build(flavour, variant)
        name = f"{flavour}-{variant}" if variant else flavour
        initrd = initramfs.for_kernel(OUT / f"initramfs-{name}.cpio", built,
                                      nicwatch, up, extra)
        result[flavour] = Kernel(flavour, built.image, initrd, variant)
    return result


def cmdline(drivers: tuple[str, ...] = ("e1000", "e1000e")) -> list[str]:
    """The e2e boot parameters of @drivers, with their "board number"
    dev_dbg() lines on (and none of their other debug output, which would
    slow the serial console down)."""
    params = []
    for name in drivers:
        spec = DRIVERS[name]
        params += [f'{spec.modname}.dyndbg="format board +p"', *spec.cmdline()]
    return params


def boot(kernel: Kernel, run: str, params: list[str],
         qemu_args: list[str] | None = None, memory: int | None = None,
         timeout: float = 180.0) -> Guest:
    """Boot @kernel for @run and wait for the agent."""
    kernel_args, args = guest_kernel.variant_args(kernel.variant)
    args = [*(qemu_args or []), *args, *(["-m", str(memory)] if memory else [])]
    guest = Guest(OUT / f"{run}-{kernel.name}", kernel.image, kernel.initrd,
                  params + [a for a in kernel_args if a not in params],
                  extra_args=args, boot_timeout=timeout)
    try:
        guest.wait_ready(timeout)
        if kernel.variant:
            # What boot left unreferenced is not this run's: scan once and
            # mark it, so that the scan in finish() reports only new leaks.
            guest.shell(f"echo scan > {KMEMLEAK}; echo clear > {KMEMLEAK}", timeout)
    except Exception:
        guest.stop()
        raise
    return guest


KMEMLEAK = "/sys/kernel/debug/kmemleak"


def kmemleak_scan(guest: Guest) -> list[str]:
    """Scan for leaks now (twice, and only objects over 5 s old count, as
    kmemleak wants); the objects it reports."""
    lines, _ = guest.shell(f"sleep 6; echo scan > {KMEMLEAK}; "
                           f"echo scan > {KMEMLEAK}; cat {KMEMLEAK}", 600)
    return [line.strip() for line in lines if "unreferenced object" in line]


def finish(guest: Guest, kernel: Kernel, tally: Tally) -> None:
    """Stop @guest, noting the kernel's reports of trouble in @tally; on the
    debug kernel, a kmemleak scan comes first."""
    try:
        if kernel.variant and guest.proc.poll() is None:
            leaks = kmemleak_scan(guest)
            tally.notes += [f"kmemleak: {line}" for line in leaks[:3]]
            tally.scans += 1
            tally.leaks += len(leaks)
    finally:
        guest.stop()
        tally.notes += [f"kernel trouble: {t}" for t in guest.trouble[:1]]
        tally.reports += len(guest.trouble)


@dataclass
class Tally:
    """The probes of one run on one kernel, and how it went."""
    probes: list[Probe] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    reports: int = 0  # kernel trouble lines (BUG, WARNING, KASAN, ...)
    scans: int = 0  # kmemleak scans run (debug kernel)
    leaks: int = 0  # objects they reported

    @property
    def violations(self) -> list[Probe]:
        return [p for p in self.probes if p.violation]

    def first(self) -> str:
        bad = self.violations
        return f"cycle {bad[0].cycle}: {bad[0].violation}" if bad else ""


ADD = re.compile(r"NICWATCH add .*")


def cold_plugged(guest: Guest, count: int, timeout: float) -> list[str]:
    """The whole console up to the agent's "add" line of the @count-th
    NIC present at boot. Their probes, and the drivers' lines about them,
    come before and around the agent's start, which boot() waited for, so
    the lines are read again from the console log."""
    deadline = time.monotonic() + timeout
    while True:
        lines = guest.console_log.read_text(errors="replace").splitlines()
        if len(records(lines)) >= count:
            guest.drain()  # read here: later waits start after them
            return lines
        if time.monotonic() > deadline:
            raise Failure(f"{len(records(lines))} of {count} NICs reported within "
                          f"{timeout}s (see {guest.console_log})")
        time.sleep(0.5)


def records(lines: list[str]) -> list[tuple[list[str], dict[str, int | str]]]:
    """Split console lines at each "NICWATCH add" line: (lines up to and
    including it, its fields), one per probe the agent reported."""
    out, chunk = [], []
    for line in lines:
        chunk.append(line)
        m = ADD.search(line)
        if m:
            out.append((chunk, agent.parse_add(m.group(0)) or {}))
            chunk = []
    return out


def check_add(model: Model, driver: str, device: str, lines: list[str],
              fields: dict[str, int | str], cycle: int) -> Probe:
    """Check one probe the model has not seen yet against it."""
    return check(driver, device, model.add(driver, device), fields, lines, cycle)


def pair(name: str, patched: Tally, plain: Tally | None, detail: str,
         extra_ok: bool = True) -> list[Verdict]:
    """A patched verdict and, with @plain, the negative control's."""
    ok = bool(patched.probes) and not patched.violations and extra_ok
    why = detail if ok else (patched.first() or "; ".join(patched.notes)
                             or "no probe ran")
    if patched.scans:
        why += f"; kmemleak: {patched.scans} scans, {patched.leaks} reports"
    rows = [(f"{name} {'patched' if not patched.scans else 'debug'}", ok, why)]
    if plain is not None:
        caught = plain.first() or "; ".join(plain.notes)
        rows.append((f"{name} plain", bool(caught),
                     f"plain kernel caught at {caught}" if caught else
                     "plain kernel passes: this test is broken"))
    return rows


def report(rows: list[Verdict]) -> int:
    """Print @rows and the "rel: N passed, M failed" line; the exit status."""
    return results.report("rel", rows)
