# SPDX-License-Identifier: GPL-2.0
"""kmemleak in a guest of the debug kernel: scan on demand, read reports.

Used by every run on the debug guest kernel (e2e, reliability): the
guest boots with no background scans (qemu-configs/debug.config), marks
what boot left behind (mark_boot()), and asks for a scan when it is done.
"""

from __future__ import annotations

from guest.machine import Guest

KMEMLEAK = "/sys/kernel/debug/kmemleak"


def scan(guest: Guest) -> list[str]:
    """Scan for leaks now (twice, and only objects over 5 s old count, as
    kmemleak wants); the objects it reports."""
    lines, _ = guest.shell(f"sleep 6; echo scan > {KMEMLEAK}; "
                           f"echo scan > {KMEMLEAK}; cat {KMEMLEAK}", 600)
    return [line.strip() for line in lines if "unreferenced object" in line]


def mark_boot(guest: Guest, timeout: float) -> None:
    """What boot left unreferenced is not the run's: scan once and mark
    it, so that the scan at the end reports only new leaks."""
    guest.shell(f"echo scan > {KMEMLEAK}; echo clear > {KMEMLEAK}", timeout)
