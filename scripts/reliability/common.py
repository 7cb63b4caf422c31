# SPDX-License-Identifier: GPL-2.0
"""What the reliability runs share: their kernels, probes and report.

Each run boots the patched guest kernel and the plain one (the negative
control) with the e2e boot parameters (every slot given distinct values,
see model/model.py), drives the failure paths it is about, and checks every
probe against the reference model with model.check.check(). A run returns
its verdicts, model.verdict.pair()'s (name, passed, detail) rows, printed
by reliability/runs.py.
"""

from __future__ import annotations

import re
import time

from guest import agent, hubtraffic, initramfs, kernel as guest_kernel
from guest.machine import Guest
from guest.session import Kernel, rel_out
from lib import results
from lib.common import Config, Failure
from model.check import Probe, check
from model.model import BOARD_NUMBER_DYNDBG, DRIVERS, Model
from model.verdict import Verdict

TIMEOUT = 60.0
FLAVOURS = ("patched", "plain")


def kernels(cfg: Config, variant: str | None = None,
            flavours: tuple[str, ...] = FLAVOURS) -> dict[str, Kernel]:
    """@cfg's guest kernels and their initramfs (in rel_out()), with the
    agent (which brings e1000 up) and the traffic generator of
    reliability/surprise.py."""
    nicwatch = agent.build(cfg).read_bytes()
    extra = {"bin/hubtraffic": hubtraffic.build(cfg).read_bytes()}
    # e1000 comes up for reliability/surprise.py's frames; not on the debug kernel,
    # which does not run it and whose acpi=noirq routes the cold-plugged
    # NICs' interrupts through $PIR onto a line their link-up interrupts
    # then flood ("irq 11: nobody cared").
    up = sorted(({"e1000"} if not variant else set()) |
                {d.name for d in DRIVERS.values() if d.up})
    result = {}
    for flavour in flavours:
        built = guest_kernel.build(cfg, flavour, variant)
        name = f"{flavour}-{variant}" if variant else flavour
        initrd = initramfs.for_kernel(rel_out(cfg) / f"initramfs-{name}.cpio", built,
                                      nicwatch, up, extra)
        result[flavour] = Kernel(cfg, flavour, built.image, initrd, variant)
    return result


def cmdline(drivers: tuple[str, ...] = ("e1000", "e1000e")) -> list[str]:
    """The e2e boot parameters of @drivers, with the "board number" lines
    on."""
    params = [BOARD_NUMBER_DYNDBG]
    for name in drivers:
        params += DRIVERS[name].cmdline()
    return params


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


def report(rows: list[Verdict]) -> int:
    """Print @rows and the "rel: N passed, M failed" line; the exit status."""
    return results.report("rel", rows)
