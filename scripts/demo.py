#!/usr/bin/env python3
"""make demo: one e1000 hot-added and removed a few times keeps board 0.

Builds the patched guest kernel and a busybox initramfs, boots them in
QEMU (i440fx, ACPI hot-plug, no network backend) with
e1000.TxDescriptors=512,1024 and the driver's dev_dbg() output on, then
hot-adds and removes one e1000 at the same slot CYCLES times over QMP.
Each cycle prints the board number the driver logged and the transmit
descriptors it applied. The patched driver gives board 0 every time:
512 descriptors the first time, then defaults (256), because a released
number's slot is reset. The unpatched driver would count 0, 1, 2, ...
"""

from __future__ import annotations

import argparse
import re
import time

import guest_kernel
import initramfs
from common import BUILD, Failure, log, main_guard
from guest import Guest

INIT = """#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox mount -t sysfs sysfs /sys
echo GUEST-READY
while :; do /bin/busybox sleep 3600; done
"""
SLOT = "0000:00:03.0"


def cycle(guest: Guest, index: int) -> tuple[int, str, float]:
    began = time.monotonic()
    guest.qmp.command("device_add", driver="e1000", id="nic", bus="pci.0",
                      addr="0x3")
    lines, _ = guest.collect_until(
        rf"e1000 {re.escape(SLOT)} \S+: Intel\(R\) PRO/1000 Network Connection",
        timeout=60)
    board = txd = None
    for line in lines:
        m = re.search(rf"e1000 {re.escape(SLOT)}: board number (\d+)", line)
        board = int(m.group(1)) if m else board
        m = re.search(r"Transmit Descriptors set to (\d+)", line)
        txd = m.group(1) if m else txd
    if board is None:
        raise Failure(f"cycle {index}: the driver logged no board number; "
                      "is this the patched kernel?")
    guest.qmp.command("device_del", id="nic")
    guest.qmp.wait_event("DEVICE_DELETED", timeout=60,
                         match=lambda ev: ev["data"].get("device") == "nic")
    return board, txd or "default (256)", time.monotonic() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cycles", type=int, default=5)
    args = parser.parse_args()
    kernel = guest_kernel.build("patched")
    work = BUILD / "demo"
    initrd = initramfs.write(work / "initramfs.cpio", INIT)
    log("booting the guest (QEMU, TCG)")
    guest = Guest(work, kernel, initrd,
                  ["e1000.dyndbg=+p", "e1000.TxDescriptors=512,1024"])
    rows = []
    try:
        guest.wait_console("GUEST-READY", timeout=120)
        for index in range(1, args.cycles + 1):
            board, txd, secs = cycle(guest, index)
            print(f"cycle {index}: e1000 at {SLOT} got board number {board}, "
                  f"TxDescriptors {txd} ({secs:.2f}s)", flush=True)
            rows.append(board)
    finally:
        guest.stop()
    if guest.trouble:
        raise Failure("kernel reported trouble:\n  " + "\n  ".join(guest.trouble))
    print(f"\nboard numbers over {len(rows)} hot-add cycles: {rows}")
    print(f"console log: {guest.console_log}")
    if any(rows):
        raise Failure("a re-added board did not get board number 0")
    return 0


if __name__ == "__main__":
    main_guard(main)
