"""The userspace path: hot-plugged NICs configured by a hot-plug handler.

  userspace.run [--replugs 50]

What netdev asks of per-board module parameters is that hot-plugged NICs
be configured from userspace instead. This run shows that path working,
with no module parameter at all on the kernel command line: in the
guest, busybox mdev listens for uevents (mdev -df, scripts/userspace/
mdev.conf) and runs scripts/userspace/nic-configure for every network
interface that appears; the handler looks the NIC up in /etc/nic-settings
by MAC address or PCI path and sets its ring sizes through the agent
("nicwatch set", the ETHTOOL_SRINGPARAM ioctl of ethtool -G), which
reads them back. One e1000 is keyed by its PCI path and stays; another,
keyed by its MAC address, is hot-plugged --replugs times, into two slots
in turn. After every add the handler's read-back must show that NIC's
own ring sizes.

The negative control boots the same guest without registering the
handler: the check must catch the NIC keeping the driver's defaults.
(The plain kernel is no control here: userspace configuration never
depended on board numbers, which is its point.) The README shows the
systemd .link file that does the same.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from e2e.check import Tally, finish
from guest import agent, initramfs, kernel as guest_kernel
from guest.machine import Guest
from guest.session import Kernel, boot, side_by_side
from lib import results
from lib.common import BUILD, Failure, log, main_guard

OUT = BUILD / "userspace"
HANDLER = Path(__file__).parent
TIMEOUT = 60.0
# How long the control waits for a handler that is not there.
NO_HANDLER_WAIT = 15.0


@dataclass(frozen=True)
class Nic:
    device_id: str
    mac: str
    key: str  # how /etc/nic-settings names it: MAC or "pci-<address>"
    tx: int
    rx: int


KEPT = Nic("kept", "52:54:00:00:00:0a", "pci-0000:00:03.0", 384, 768)
REPLUGGED = Nic("replugged", "52:54:00:00:00:0b", "52:54:00:00:00:0b", 512, 1024)
SLOTS = (4, 5)  # the replugged NIC's slots, in turn: the MAC key follows it


def settings() -> bytes:
    return "".join(f"{n.key} {n.tx} {n.rx}\n" for n in (KEPT, REPLUGGED)).encode()


def kernel() -> Kernel:
    built = guest_kernel.build("patched")
    extra = {"bin/nic-configure": (HANDLER / "nic-configure").read_bytes(),
             "etc/mdev.conf": (HANDLER / "mdev.conf").read_bytes(),
             "etc/nic-settings": settings()}
    initrd = initramfs.for_kernel(OUT / "initramfs.cpio", built,
                                  agent.build().read_bytes(), [], extra)
    return Kernel("patched", built.image, initrd)


def plug(guest: Guest, nic: Nic, slot: int, handler: bool) -> str:
    """Hot-add @nic at @slot: "" when the handler gave it its settings,
    else what went wrong. Without a @handler, the wait for it is short."""
    pci = f"0000:00:{slot:02x}.0"
    guest.qmp.command("device_add", driver="e1000", id=nic.device_id,
                      mac=nic.mac, bus="pci.0", addr=hex(slot))
    _, m = guest.collect_until(rf"NICWATCH add .*bus={pci} .*", TIMEOUT)
    added = agent.parse_add(m.group(0)) or {}
    try:
        _, m = guest.collect_until(
            rf"NICWATCH set .*bus={pci} .*|NICSETUP nothing.*|NICWATCH error: set.*",
            TIMEOUT if handler else NO_HANDLER_WAIT)
    except Failure:
        return (f"no handler ran: rings tx={added.get('tx')} rx={added.get('rx')}, "
                f"configured tx={nic.tx} rx={nic.rx}")
    fields = agent.parse_add(m.group(0), "set")
    if fields is None:
        return m.group(0)
    got = (fields.get("tx"), fields.get("rx"))
    return "" if got == (nic.tx, nic.rx) else (
        f"rings tx={got[0]} rx={got[1]}, configured tx={nic.tx} rx={nic.rx}")


def unplug(guest: Guest, nic: Nic) -> None:
    guest.qmp.command("device_del", id=nic.device_id)
    guest.qmp.wait_event("DEVICE_DELETED", TIMEOUT,
                         match=lambda ev: ev["data"].get("device") == nic.device_id)
    guest.wait_console(r"NICWATCH del ", TIMEOUT)


def run_one(k: Kernel, replugs: int, handler: bool) -> tuple[Tally, int, str]:
    """Boot, register the handler if @handler, plug KEPT once and
    REPLUGGED @replugs times: the tally, adds that passed, first failure."""
    guest = boot(k, "userspace" if handler else "userspace-no-handler", [],
                 out=OUT)
    tally, good, first = Tally(), 0, ""
    try:
        if handler:
            # -f: in the foreground (in the background of the shell), so
            # that the handler's lines are kept; a daemon's output goes to
            # /dev/null. To /dev/kmsg, as the agent's: after its "add".
            guest.shell("mdev -df >/dev/kmsg &", TIMEOUT)
        steps = [(KEPT, 3)] + [(REPLUGGED, SLOTS[i % 2]) for i in range(replugs)]
        for cycle, (nic, slot) in enumerate(steps, 1):
            why = plug(guest, nic, slot, handler)
            if why:
                first = first or f"cycle {cycle} ({nic.device_id}): {why}"
                break
            good += 1
            if nic is REPLUGGED:
                unplug(guest, nic)
    finally:
        finish(guest, k, tally)
    return tally, good, first


def run(replugs: int = 50) -> list[tuple[str, bool, str]]:
    k = kernel()
    # The control stops at the first add the check catches.
    ran = side_by_side(lambda handler: run_one(k, replugs if handler else 1, handler),
                       {"handler": True, "control": False})
    tally, good, first = ran["handler"]
    ok = not first and not tally.reports and good == replugs + 1
    detail = (f"{KEPT.mac} by PCI path: tx={KEPT.tx} rx={KEPT.rx}; {REPLUGGED.mac} "
              f"by MAC, re-plugged {replugs} times into slots "
              f"{' and '.join(map(str, SLOTS))}: tx={REPLUGGED.tx} rx={REPLUGGED.rx} "
              f"every time ({good} adds checked); no module parameters"
              if ok else first or f"kernel trouble: {tally.notes[:1]}")
    _, _, caught = ran["control"]
    return [("userspace handler", ok, detail),
            ("userspace no handler", bool(caught),
             f"caught at {caught}" if caught else
             "the NIC got its settings without a handler: this test is broken")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--replugs", type=int, default=50)
    args = parser.parse_args()
    log("userspace path: mdev handler, no module parameters")
    rows = run(args.replugs)
    results.save("userspace", rows)
    return results.report("userspace", rows, 22)


if __name__ == "__main__":
    main_guard(main)
