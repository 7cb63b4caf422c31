# SPDX-License-Identifier: GPL-2.0
"""guest.hotplug against the fake QMP server of tests/test_qmp.py and the
real console wait of guest.machine.Guest.

The guest is a Guest without its QEMU process: its QMP client talks to
FakeQEMU, and its console queue is fed, as the serial console would be,
by the fake's guest hook when a command arrives (a probe's lines on
device_add, the agent's del line on device_del). Every wait that does
not get its line or event raises HotplugError naming the device and
what did not come. No QEMU."""

from __future__ import annotations

import queue
import tempfile
import time
import unittest
from pathlib import Path
from typing import Any, Callable
from unittest import mock

from guest import hotplug
from guest.hotplug import AGENT_ADD, AGENT_DEL, HotplugError
from guest.machine import Guest
from guest.qmp import QMP, QMPError
from tests.test_qmp import FakeQEMU

PCI = "0000:00:03.0"
PROBE = [f"[   20.000000] pci {PCI}: [8086:100e] type 00 class 0x020000",
         f"[   20.100000] e1000 {PCI}: board number 0",
         f"[   20.200000] e1000 {PCI} eth0: Intel(R) PRO/1000 Network Connection",
         f"NICWATCH add ifindex=3 name=eth0 driver=e1000 bus={PCI} tx=512 rx=1536"]
DEL = "NICWATCH del ifindex=3 name=eth0"
# e2e's wait after device_add: the agent's line, or the driver's failed probe.
PROBED = AGENT_ADD + r"|(\S+): probe with driver \S+ failed with error (-\d+)"


Script = Callable[[str, dict[str, Any]], list[str]]


def qmp_guest(test: unittest.TestCase, says: dict[str, list[str]] | Script,
              unreleased: tuple[str, ...] = ()) -> tuple[Guest, FakeQEMU]:
    """A guest whose console says @says[COMMAND] (or @says(COMMAND, its
    arguments)) when QEMU gets COMMAND, QEMU never releasing the devices
    in @unreleased; and its QEMU. Cleaned up with @test."""
    tmp = tempfile.TemporaryDirectory(prefix="hotplug-test-")
    test.addCleanup(tmp.cleanup)
    # Guest.__new__: the console and QMP of a Guest, without the QEMU
    # process that Guest() would start; stop() has nothing to stop.
    guest = Guest.__new__(Guest)
    lines: queue.Queue[str] = queue.Queue()
    guest._lines = lines
    guest.console_log = Path(tmp.name) / "console.log"
    guest.trouble = []
    proc = mock.Mock()
    proc.poll.return_value = None
    guest.proc = proc
    setattr(guest, "stop", lambda: None)

    def console(name: str, args: dict[str, Any]) -> None:
        for line in says(name, args) if callable(says) else says.get(name, []):
            lines.put(line)

    qemu = FakeQEMU(Path(tmp.name) / "qmp.sock", console, unreleased)
    test.addCleanup(qemu.close)
    guest.qmp = QMP(Path(tmp.name) / "qmp.sock", timeout=5)
    test.addCleanup(guest.qmp.close)
    return guest, qemu


def sent(qemu: FakeQEMU, name: str) -> list[dict[str, Any]]:
    """The arguments of every @name command @qemu got, in order."""
    return [m.get("arguments", {}) for m in qemu.received if m["execute"] == name]


class HotplugTest(unittest.TestCase):
    def start(self, says: dict[str, list[str]] | None = None,
              unreleased: tuple[str, ...] = ()) -> Guest:
        """qmp_guest(), by default a probe on device_add and the del line
        on device_del."""
        guest, self.qemu = qmp_guest(
            self, {"device_add": PROBE, "device_del": [DEL]} if says is None else says,
            unreleased)
        return guest

    def sent(self, name: str) -> list[dict[str, Any]]:
        return sent(self.qemu, name)

    def test_add_waits_for_the_probe(self) -> None:
        """device_add with the caller's arguments, in their order; then
        the console up to and with the agent's line."""
        guest = self.start()
        added = hotplug.add(guest, "e1000", "hubA", AGENT_ADD, 1.0,
                            bus="pci.0", addr="0x3", netdev="h0")
        self.assertEqual(self.sent("device_add"), [{"driver": "e1000", "id": "hubA",
                                                    "bus": "pci.0", "addr": "0x3",
                                                    "netdev": "h0"}])
        self.assertEqual(list(self.sent("device_add")[0]),
                         ["driver", "id", "bus", "addr", "netdev"])
        self.assertEqual(added.lines, PROBE)
        self.assertEqual(added.match.group(0), PROBE[-1])
        self.assertGreaterEqual(added.seconds, 0)

    def test_add_stops_at_the_line_asked_for(self) -> None:
        """The raw loop's wait: the driver's own message, not the agent's;
        the lines after it are left for the next wait."""
        guest = self.start()
        added = hotplug.add(guest, "e1000", "raw", r"Intel\(R\) PRO/1000 Network Connection",
                            1.0, bus="pci.0", addr="0x3")
        self.assertEqual(added.lines, PROBE[:3])
        self.assertEqual(guest.drain(), PROBE[3:])

    def test_add_sees_a_failed_probe(self) -> None:
        """e2e's wait also ends at a probe that failed, with its PCI
        address and error."""
        failed = [f"[   20.000000] e1000 {PCI}: probe with driver e1000 failed with error -12"]
        guest = self.start({"device_add": failed})
        added = hotplug.add(guest, "e1000", "nic", PROBED, 1.0, bus="pci.0", addr="0x3")
        self.assertEqual(added.match.groups(), (PCI, "-12"))

    def test_add_without_wait(self) -> None:
        """device_add() alone sends the command and reads no console."""
        guest = self.start()
        hotplug.device_add(guest, "e1000", "kept", mac="52:54:00:00:00:0a", bus="pci.0",
                           addr="0x3")
        self.assertEqual(list(self.sent("device_add")[0]),
                         ["driver", "id", "mac", "bus", "addr"])
        self.assertEqual(guest.drain(), PROBE)

    def test_add_timeout_names_what_did_not_come(self) -> None:
        """No probe line: HotplugError after about the timeout, naming the
        device, the line awaited and the console log."""
        guest = self.start({"device_add": ["[   20.000000] pci 0000:00:03.0: BAR 0"]})
        began = time.monotonic()
        with self.assertRaises(HotplugError) as caught:
            hotplug.add(guest, "e1000", "nic", AGENT_ADD, 0.2, bus="pci.0", addr="0x3")
        self.assertLess(time.monotonic() - began, 2)
        text = str(caught.exception)
        self.assertTrue(text.startswith("hot-add of nic (e1000): the probe line did not "
                                        "come (console: no line matching 'NICWATCH add "
                                        ".*' within 0.2s"), text)
        self.assertIn(str(guest.console_log), text)

    def test_add_qemu_gone(self) -> None:
        """QEMU exits while the probe is awaited: HotplugError, saying so."""
        guest = self.start({})
        gone = mock.Mock(returncode=1)
        gone.poll.return_value = 1
        guest.proc = gone
        with self.assertRaisesRegex(HotplugError, r"^hot-add of nic \(e1000\): the probe "
                                    r"line did not come \(QEMU exited \(1\)"):
            hotplug.add(guest, "e1000", "nic", AGENT_ADD, 0.2, bus="pci.0", addr="0x3")

    def test_add_refused(self) -> None:
        """A device QEMU refuses: its QMPError, and no wait."""
        guest = self.start()
        began = time.monotonic()
        with self.assertRaisesRegex(QMPError, "not a valid device model"):
            hotplug.add(guest, "nonesuch", "nic", AGENT_ADD, 5.0)
        self.assertLess(time.monotonic() - began, 2)

    def test_remove_sees_device_deleted_and_the_del_line(self) -> None:
        """device_del with the id; its DEVICE_DELETED; then the console up
        to and with the agent's del line."""
        guest = self.start({"device_del": ["[   30.000000] e1000 0000:00:03.0: removed", DEL]})
        removed = hotplug.remove(guest, "nic", 1.0)
        self.assertEqual(self.sent("device_del"), [{"id": "nic"}])
        self.assertEqual(removed.lines[-1], DEL)
        self.assertEqual(len(removed.lines), 2)
        self.assertGreaterEqual(removed.seconds, 0)

    def test_remove_with_the_line_asked_for(self) -> None:
        """reliability/surprise.py's wait: the del line of one interface."""
        guest = self.start({"device_del": ["NICWATCH del ifindex=2 name=eth0", DEL]})
        removed = hotplug.remove(guest, "hubA", 1.0, gone=r"NICWATCH del ifindex=3 ")
        self.assertEqual(removed.lines, ["NICWATCH del ifindex=2 name=eth0", DEL])

    def test_remove_without_del_line(self) -> None:
        """With gone=None (the userspace path, the raw loop) the console is
        not read: DEVICE_DELETED is all."""
        guest = self.start()
        removed = hotplug.remove(guest, "nic", 1.0, gone=None)
        self.assertEqual(removed.lines, [])
        self.assertEqual(guest.drain(), [DEL])

    def test_device_deleted_timeout(self) -> None:
        """A device the guest never releases: HotplugError after about the
        timeout, naming the device and the event, and no console read."""
        guest = self.start(unreleased=("nic",))
        began = time.monotonic()
        with self.assertRaises(HotplugError) as caught:
            hotplug.remove(guest, "nic", 0.2)
        self.assertLess(time.monotonic() - began, 2)
        self.assertEqual(str(caught.exception),
                         "hot-remove of nic: no DEVICE_DELETED event for it within 0.2s: "
                         "the guest did not release the device")
        self.assertEqual(guest.drain(), [DEL])

    def test_del_line_timeout(self) -> None:
        """DEVICE_DELETED but no del line: HotplugError naming the line."""
        guest = self.start({"device_del": []})
        with self.assertRaisesRegex(HotplugError, r"^hot-remove of nic: the del line did "
                                    r"not come \(console: no line matching 'NICWATCH del ' "
                                    r"within 0.2s"):
            hotplug.remove(guest, "nic", 0.2, gone=AGENT_DEL)

    def test_remove_waits_for_its_own_event(self) -> None:
        """Another device's DEVICE_DELETED (here one without an id, left
        over from an earlier removal) is not this one's; the raw loop's
        match_id=False takes the first of any."""
        guest = self.start(unreleased=("nic",))
        hotplug.remove(guest, "other", 1.0, gone=None)
        with self.assertRaisesRegex(HotplugError, "no DEVICE_DELETED event for it"):
            hotplug.remove(guest, "nic", 0.2, gone=None)
        hotplug.remove(guest, "nic", 0.2, gone=None, match_id=False)


if __name__ == "__main__":
    unittest.main()
