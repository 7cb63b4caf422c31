# SPDX-License-Identifier: GPL-2.0
"""Hot-plug over QMP: add a device and wait for its probe, delete it and
wait until it is gone. Every run that hot-plugs does it through here.

add() sends device_add with the caller's arguments, then waits for the
console line that says the guest probed the device: the agent's
"NICWATCH add" line (AGENT_ADD), or a driver's own message where that is
what a run waits for. device_add() is the command alone, for a run that
reads the device back itself (fault injection's "show", the userspace
path's nic-readback). remove() sends device_del, waits for QEMU's
DEVICE_DELETED for that id (the guest ejected the device), then, unless
told not to, for the agent's "NICWATCH del" line (AGENT_DEL: its
interface is gone too).

Each wait has its timeout and fails with a HotplugError naming the
device and what did not come; QMP's own errors (a device_add QEMU
refuses, a command it never answers) come through as QMPError and
QMPTimeout. The console waits are guest.machine.Guest.collect_until():
what a run needs of the lines read (the probe check, the traffic
counters of reliability/surprise.py) it takes from what these return.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import Any, Callable

from guest.machine import Guest
from guest.qmp import QMPTimeout
from lib.common import Failure

# The agent's line for an interface that appeared, and for one that went
# (guest/agent/nicwatch.c).
AGENT_ADD = r"NICWATCH add .*"
AGENT_DEL = r"NICWATCH del "


class HotplugError(Failure):
    """What a hot-plug step waited for did not come: a Failure, as the
    console's own waits raise, so that runs report it as they did."""


@dataclass
class Added:
    lines: list[str]  # console lines read, up to and with the probe's line
    match: re.Match[str]  # that line, matched
    seconds: float  # from device_add to the line


@dataclass
class Removed:
    lines: list[str]  # console lines read, up to and with the del line
    seconds: float  # from device_del to the end of the waits


def device_add(guest: Guest, driver: str, device_id: str, **props: str) -> None:
    """QMP device_add of a @driver device @device_id with @props (bus,
    addr, netdev, mac, ...), in the order given."""
    # Typed Any: QMP.command() takes its own timeout beside the arguments.
    args: dict[str, Any] = {"driver": driver, "id": device_id, **props}
    guest.qmp.command("device_add", **args)


def add(guest: Guest, driver: str, device_id: str, probed: str, timeout: float,
        **props: str) -> Added:
    """Hot-add @device_id (device_add()) and wait up to @timeout for the
    first console line matching @probed."""
    began = time.monotonic()
    device_add(guest, driver, device_id, **props)
    lines, m = _console(guest, probed, timeout,
                        f"hot-add of {device_id} ({driver}): the probe line did not come")
    return Added(lines, m, time.monotonic() - began)


def remove(guest: Guest, device_id: str, timeout: float, gone: str | None = AGENT_DEL,
           match_id: bool = True) -> Removed:
    """Hot-remove @device_id: device_del, its DEVICE_DELETED, then the
    first console line matching @gone (None: no console wait), each
    within @timeout.

    Without @match_id any DEVICE_DELETED will do, as the raw loop of
    e2e/runner.py has always taken it (its one device has no children, so
    the first is its own).
    """
    began = time.monotonic()
    guest.qmp.command("device_del", id=device_id)
    match: Callable[[dict[str, Any]], object] | None = (
        (lambda ev: ev["data"].get("device") == device_id) if match_id else None)
    try:
        guest.qmp.wait_event("DEVICE_DELETED", timeout, match=match)
    except QMPTimeout:
        raise HotplugError(f"hot-remove of {device_id}: no DEVICE_DELETED event "
                           f"{'for it ' if match_id else ''}within {timeout}s: "
                           "the guest did not release the device") from None
    lines: list[str] = []
    if gone is not None:
        lines, _ = _console(guest, gone, timeout,
                            f"hot-remove of {device_id}: the del line did not come")
    return Removed(lines, time.monotonic() - began)


def _console(guest: Guest, pattern: str, timeout: float,
             what: str) -> tuple[list[str], re.Match[str]]:
    """Guest.collect_until(), its failure (the timeout, QEMU gone) told
    as @what of the hot-plug step that waited."""
    try:
        return guest.collect_until(pattern, timeout)
    except Failure as err:
        raise HotplugError(f"{what} ({err})") from None
