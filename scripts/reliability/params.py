# SPDX-License-Identifier: GPL-2.0
"""Bad parameters: on the kernel command line and through modprobe.

  reliability/params.py

e1000 is built in, so its parameters come from the kernel command line;
e1000e is a module in the guest kernel, loaded by modprobe. Each case
says what the kernel must print and what the next hot-added NIC must
report, then the NIC is removed and added again in the same place and
must get its number back (board 0) and report the same again: it owns
slot 0, having taken the number first. A second slot is given a good
value in every case, so that the plain kernel, which hands the re-added
NIC board 1, shows it.

Command line (e1000, two boots; what ethtool shows of e1000 is its rings):
  out of range   TxDescriptors=5,600       driver's "Invalid ..." message, tx 256
  non-numeric    RxDescriptors=abc         the kernel's "invalid for parameter";
                 the option stays unset: rx 256
  negative       RxDescriptors=-5,1600     driver's "Invalid ..." message, rx 256
  34 values      TxDescriptors=512,520,... the kernel's "can only take 33
                 arguments" (the arrays have a spare entry past the 32
                 slots); its parser has stored the first 33 by then, and
                 they apply (board 0: tx 512)
modprobe (e1000e, whose interrupt throttling shows as rx-usecs):
  non-numeric    InterruptThrottleRate=abc  load refused, module not loaded
  34 values      InterruptThrottleRate=...  load refused, module not loaded
  negative       InterruptThrottleRate=-5,1000  loads; driver's "Invalid ..." message, default
  out of range   InterruptThrottleRate=50,1000  loads; driver's "Invalid ..." message, default
  good           InterruptThrottleRate=1000,1100  loads; board 0 gets 1000
Nothing may crash or warn.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass

from guest import hotplug
from guest.machine import Guest
from guest.session import Kernel, boot, finish, side_by_side
from lib.common import config, main_guard
from model.check import Probe, check
from model.model import BOARD_NUMBER_DYNDBG, Expected
from model.verdict import Tally, Verdict, pair
from reliability.common import TIMEOUT, kernels, records, report

E1000_DEFAULTS = {"tx": 256, "rx": 256}
# e1000e's default interrupt throttling, mode 3, reads back as rx-usecs 3.
E1000E_DEFAULT_USECS = 3


@dataclass(frozen=True)
class Case:
    name: str
    driver: str
    load: str | None  # modprobe options, for e1000e; None for the command line
    message: str  # what the kernel must print (a regex)
    refused: bool  # modprobe must fail and leave the module out
    first: dict[str, int]  # what board 0 reports on its first add


BOOT1 = ["e1000.TxDescriptors=5,600", "e1000.RxDescriptors=abc",
         BOARD_NUMBER_DYNDBG]
BOOT2 = ["e1000.TxDescriptors=" + ",".join(str(512 + 8 * k) for k in range(34)),
         "e1000.RxDescriptors=-5,1600", BOARD_NUMBER_DYNDBG]
CASES1 = [
    Case("cmdline out-of-range, non-numeric", "e1000", None,
         r"Invalid Transmit Descriptors value specified \(5\)", False, E1000_DEFAULTS),
    Case("modprobe non-numeric", "e1000e", "InterruptThrottleRate=abc",
         r"`abc' invalid for parameter `InterruptThrottleRate'", True, {}),
    Case("modprobe 34 values", "e1000e",
         "InterruptThrottleRate=" + ",".join(str(1000 + 100 * k) for k in range(34)),
         r"can only take 33 arguments", True, {}),
    Case("modprobe negative", "e1000e", "InterruptThrottleRate=-5,1000",
         r"Invalid Interrupt Throttling Rate \(ints/sec\) value specified \(-5\)",
         False, {"rx_usecs": E1000E_DEFAULT_USECS}),
    Case("modprobe out-of-range", "e1000e", "InterruptThrottleRate=50,1000",
         r"Invalid Interrupt Throttling Rate \(ints/sec\) value specified \(50\)",
         False, {"rx_usecs": E1000E_DEFAULT_USECS}),
    Case("modprobe good", "e1000e", "InterruptThrottleRate=1000,1100", r"", False,
         {"rx_usecs": 1000}),
]
CASES2 = [Case("cmdline 34 values, negative", "e1000", None,
               r"Invalid Receive Descriptors value specified \(-5\)", False,
               {"tx": 512, "rx": 256})]
# What ends the wait after a hot-add: the agent's line, or a failed probe.
PROBED = hotplug.AGENT_ADD + r"|probe with driver \S+ failed"
# The kernel's own messages for the command-line cases, once per boot.
BOOT_MESSAGES = {1: r"`abc' invalid for parameter `e1000\.RxDescriptors'",
                 2: r"can only take 33 arguments"}


def plug(guest: Guest, driver: str, expected: Expected,
         cycle: int) -> tuple[list[str], Probe]:
    """Hot-add one NIC; check its number and values (model.check.check())."""
    added = hotplug.add(guest, driver, "nic", PROBED, TIMEOUT, bus="pci.0", addr="0x3")
    got = records(added.lines)
    fields = got[-1][1] if got else {}
    probe = check(driver, "nic", expected, fields, added.lines, cycle)
    return added.lines, probe


def unplug(guest: Guest) -> None:
    """Hot-remove the NIC, until the agent saw it go."""
    hotplug.remove(guest, "nic", TIMEOUT)


def run_case(guest: Guest, case: Case, boot_lines: list[str], tally: Tally) -> None:
    cycle = len(tally.probes) + 1
    lines: list[str] = []
    if case.load is not None:
        guest.shell("rmmod e1000e 2>/dev/null", TIMEOUT)
        lines, rc = guest.shell(f"modprobe e1000e {case.load}", TIMEOUT)
        _, absent = guest.shell("grep -q '^e1000e ' /proc/modules", TIMEOUT)
        if case.refused:
            if rc == 0 or absent == 0:
                tally.notes.append(f"{case.name}: modprobe was not refused")
            elif not re.search(case.message, "\n".join(lines)):
                tally.notes.append(f"{case.name}: no message /{case.message}/")
            # Nothing must be left half-loaded: a good load works now.
            guest.shell("modprobe e1000e", TIMEOUT)
            return
        if rc != 0:
            tally.notes.append(f"{case.name}: modprobe failed ({rc})")
            return
    first, probe = plug(guest, case.driver, Expected(0, dict(case.first), False),
                           cycle)
    tally.probes.append(probe)
    text = "\n".join(boot_lines + lines + first)
    if case.message and not re.search(case.message, text):
        tally.notes.append(f"{case.name}: no message /{case.message}/")
    unplug(guest)
    # Re-added in the same place: its own number back, and its slot's
    # values, as on its first add.
    _, probe = plug(guest, case.driver, Expected(0, dict(case.first), False), cycle + 1)
    tally.probes.append(probe)
    unplug(guest)


def run_boot(kernel: Kernel, number: int, params: list[str], cases: list[Case],
             tally: Tally) -> None:
    guest = boot(kernel, f"params{number}", params)
    try:
        boot_lines = open(guest.console_log, errors="replace").read().splitlines()
        if not re.search(BOOT_MESSAGES[number], "\n".join(boot_lines)):
            tally.notes.append(f"boot {number}: no message /{BOOT_MESSAGES[number]}/")
        for case in cases:
            run_case(guest, case, boot_lines, tally)
    finally:
        finish(guest, kernel, tally)


def run_one(kernel: Kernel) -> Tally:
    tally = Tally()
    run_boot(kernel, 1, BOOT1, CASES1, tally)
    run_boot(kernel, 2, BOOT2, CASES2, tally)
    return tally


def run(kernels_: dict[str, Kernel]) -> list[Verdict]:
    ran = side_by_side(run_one, kernels_)
    patched, plain = ran["patched"], ran.get("plain")
    detail = ("4 bad values on the command line (2 boots), 4 bad and 1 good through "
              "modprobe (2 refused): messages and defaults as documented, "
              f"{len(patched.probes)} hot-adds, number 0 back after each re-add")
    return pair("bad-params", patched, plain, detail)


def main() -> int:
    argparse.ArgumentParser(description=__doc__).parse_args()
    rows = run(kernels(config()))
    return report(rows)


if __name__ == "__main__":
    main_guard(main)
