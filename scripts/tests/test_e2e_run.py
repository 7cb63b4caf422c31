# SPDX-License-Identifier: GPL-2.0
"""e2e.runner's hot-plug, through guest/hotplug.py and guest.session.boot():
probe(), unplug(), a scenario's run() and the raw loop, on a guest whose
QMP is tests/test_qmp.py's FakeQEMU and whose console a kernel stand-in
(tests.fakes.Boards) writes as each device_add and device_del arrives.
What QEMU is sent, what is waited for, and what the model makes of it.
No QEMU."""

from __future__ import annotations

import contextlib
import io
import unittest
from pathlib import Path
from typing import Any
from unittest import mock

from e2e import runner as e2e_run
from e2e.scenarios import Op, scenarios
from guest.machine import Guest
from guest.session import Kernel
from lib.common import config
from model.model import Model
from tests import fakes
from tests.test_hotplug import Script, qmp_guest, sent
from tests.test_qmp import FakeQEMU


def hot_plugged(boards: fakes.Boards) -> Script:
    """The console of a guest with @boards' kernel: a probe and the
    agent's line on device_add, the agent's del line on device_del."""
    where: dict[str, str] = {}

    def says(name: str, args: dict[str, Any]) -> list[str]:
        if name == "device_add":
            pci = where[args["id"]] = f"0000:00:{int(args['addr'], 16):02x}.0"
            return boards.bind(pci) + [boards.show(pci)]
        if name == "device_del":
            boards.unbind(where.pop(args["id"]))
            return ["NICWATCH del ifindex=2 name=eth0"]
        return []
    return says


class ProbeTest(unittest.TestCase):
    def guest(self, says: dict[str, list[str]] | Script) -> tuple[Guest, FakeQEMU]:
        return qmp_guest(self, says)

    def test_add_remove_add(self) -> None:
        """device_add of the op's NIC, checked against the model;
        device_del until the agent saw it go; the re-add gets its number
        back with its values on the patched kernel."""
        guest, qemu = self.guest(hot_plugged(fakes.Boards("e1000", True)))
        model = Model()
        first = e2e_run.probe(guest, model, Op(True, "e1000", "nic", 3), 1)
        self.assertEqual((first.pci, first.number, first.violation),
                         ("0000:00:03.0", 0, ""))
        self.assertEqual(sent(qemu, "device_add"),
                         [{"driver": "e1000", "id": "nic", "bus": "pci.0", "addr": "0x3"}])
        seconds = e2e_run.unplug(guest, model, Op(False, "e1000", "nic", 3))
        self.assertGreaterEqual(seconds, 0)
        self.assertEqual(sent(qemu, "device_del"), [{"id": "nic"}])
        again = e2e_run.probe(guest, model, Op(True, "e1000", "nic", 3), 2)
        self.assertEqual((again.number, again.violation, again.told), (0, "", False))
        self.assertEqual(again.observed, first.observed)

    def test_same_slot_other_device_id(self) -> None:
        """The kernel knows a board by its place on the bus: re-plugged in
        the same slot under another device id (matrix()'s re-plugs), a
        NIC is the same board to the model too, with its own number and
        values; a NIC in another slot is another board."""
        guest, _ = self.guest(hot_plugged(fakes.Boards("e1000", True)))
        model = Model()
        e2e_run.probe(guest, model, Op(True, "e1000", "nic3", 3), 1)
        e2e_run.unplug(guest, model, Op(False, "e1000", "nic3", 3))
        again = e2e_run.probe(guest, model, Op(True, "e1000", "nic", 3), 2)
        self.assertEqual((again.number, again.violation), (0, ""))
        e2e_run.unplug(guest, model, Op(False, "e1000", "nic", 3))
        other = e2e_run.probe(guest, model, Op(True, "e1000", "nic", 4), 3)
        self.assertEqual((other.number, other.violation), (1, ""))

    def test_plain_kernel_caught(self) -> None:
        """The plain kernel's re-add: a new number with its slot's values."""
        guest, _ = self.guest(hot_plugged(fakes.Boards("e1000", False)))
        model = Model()
        e2e_run.probe(guest, model, Op(True, "e1000", "nic", 3), 1)
        e2e_run.unplug(guest, model, Op(False, "e1000", "nic", 3))
        again = e2e_run.probe(guest, model, Op(True, "e1000", "nic", 3), 2)
        self.assertTrue(again.violation.startswith("values "), again.violation)

    def test_failed_probe_owns_its_number(self) -> None:
        """A probe the driver core says failed ends the wait: its error,
        no number kept, and the model frees its number and the slot the
        board claimed (e1000 counts the boards that work): the next board
        takes it."""
        guest, _ = self.guest({"device_add": [
            "[   20.000000] e1000 0000:01:07.0: probe with driver e1000 failed with error -5"]})
        model = Model()
        op = Op(True, "e1000", "br2-nic7", 7, "br2")
        p = e2e_run.probe(guest, model, op, 1)
        self.assertEqual((p.pci, p.failed, p.number, p.violation),
                         ("0000:01:07.0", -5, None, ""))
        self.assertEqual(model.add("e1000", "pci.0:0x3").number, 0)
        self.assertEqual(model.add("e1000", op.board).number, 1)

    def test_failed_probe_owns_the_number_it_logged(self) -> None:
        """Where the failed probe's "board number" line shows, that number
        is the one freed, not the model's guess; e1000 gives up its slot."""
        guest, _ = self.guest({"device_add": [
            "[   19.900000] e1000 0000:01:07.0: board number 2",
            "[   20.000000] e1000 0000:01:07.0: probe with driver e1000 failed with error -5"]})
        model = Model()
        op = Op(True, "e1000", "br2-nic7", 7, "br2")
        e2e_run.probe(guest, model, op, 1)
        self.assertEqual([model.add("e1000", f"other{i}").number for i in range(3)],
                         [0, 1, 2])
        self.assertEqual(model.add("e1000", op.board).number, 3)


class RunTest(unittest.TestCase):
    def setUp(self) -> None:
        self.cfg = config("7.3", {})

    def boot(self, guest: Guest, calls: list[tuple[Any, ...]]) -> Any:
        def boot(*args: Any, **kwargs: Any) -> Guest:
            calls.append((args, kwargs))
            return guest
        return mock.patch.object(e2e_run, "boot", boot)

    def test_scenario(self) -> None:
        """Scenario a on the patched stand-in: booted as e2e boots, every
        probe passes, every removal timed, the patched row passes."""
        scenario = next(s for s in scenarios(cycles=3) if s.name == "a")
        guest, qemu = qmp_guest(self, hot_plugged(fakes.Boards("e1000", True)))
        calls: list[tuple[Any, ...]] = []
        kernel = Kernel(self.cfg, "patched", Path("bzImage"), Path("initrd"))
        with self.boot(guest, calls), contextlib.redirect_stdout(io.StringIO()):
            tally = e2e_run.run(scenario, kernel)
        self.assertEqual(calls, [((kernel, "a", e2e_run.cmdline(), []),
                                  {"timeout": 120.0, "qmp_timeout": 60.0,
                                   "workdir": self.cfg.build / "e2e" / "a-patched"})])
        self.assertEqual((len(tally.probes), len(tally.removals), tally.first()), (3, 3, ""))
        self.assertEqual(len(sent(qemu, "device_add")), 3)
        rows = e2e_run.judge("a", tally, None, raw=None)
        self.assertEqual(rows[0][:2], ("a patched", True))

    def test_raw_loop(self) -> None:
        """The raw loop: add until the kernel's own probe message, del
        until DEVICE_DELETED, as often as asked, in its own directory."""
        guest, qemu = qmp_guest(self, {"device_add": [
            "[   20.000000] e1000 0000:00:03.0 eth0: Intel(R) PRO/1000 Network Connection"]})
        calls: list[tuple[Any, ...]] = []
        plain = Kernel(self.cfg, "plain", Path("bzImage"), Path("initrd"))
        with self.boot(guest, calls):
            seconds = e2e_run.raw_loop("e1000", plain, cycles=3)
        self.assertGreaterEqual(seconds, 0)
        self.assertEqual(calls, [((plain, "raw-e1000", []),
                                  {"timeout": 120.0, "qmp_timeout": 60.0,
                                   "workdir": self.cfg.build / "e2e" / "raw-e1000"})])
        self.assertEqual(sent(qemu, "device_add"),
                         [{"driver": "e1000", "id": "raw", "bus": "pci.0", "addr": "0x3"}] * 3)
        self.assertEqual(sent(qemu, "device_del"), [{"id": "raw"}] * 3)


if __name__ == "__main__":
    unittest.main()
