# SPDX-License-Identifier: GPL-2.0
"""reliability.faults: reading the guest's output of a bind with an
injected fault (the "FI" result line, the call site in the kernel's
stack), and the rounds of Driver.run() against the reference model,
with a guest stand-in in place of QEMU.

test_data/faults-e1000-probe.log and faults-e1000-buffer.log are
written in the format of the kernel's fault-injection report
(lib/fault-inject.c: "FAULT_INJECTION: forcing a failure.", then the
stack) and of the guest's fault_bind (faults.SETUP); they are not
recorded from a run. The stand-in's kernel (tests.fakes.Boards) numbers
boards as the patched kernel does, as the plain one does, or as a
patched kernel whose failed probe keeps its number, or takes (and owns)
a number that is not the board's own."""

from __future__ import annotations

import contextlib
import io
import re
import unittest
from pathlib import Path
from unittest import mock

from guest.session import Kernel
from lib.common import Failure, config
from model.verdict import Tally
from reliability import faults
from tests import fakes

DATA = Path(__file__).parent / "test_data"
NIC = "0000:00:03.0"


def lines(name: str) -> list[str]:
    return (DATA / name).read_text().splitlines()


class OutputTest(unittest.TestCase):
    def test_call_site_of_a_probe_fault(self) -> None:
        """The call site is the first frame of the stack that is not the
        allocator's or the fault injection's own."""
        self.assertEqual(faults.call_site(lines("faults-e1000-probe.log")),
                         "devm_board_number_get")

    def test_call_site_of_a_buffer_fault(self) -> None:
        """A fault in the sysfs write itself names kernfs, before any probe;
        an unreliable ("?") frame is read like the others."""
        self.assertEqual(faults.call_site(lines("faults-e1000-buffer.log")),
                         "kernfs_fop_write_iter")

    def test_no_fault_no_call_site(self) -> None:
        """Frames with no fault report before them, or only the
        allocator's frames, name no site."""
        stack = lines("faults-e1000-probe.log")
        self.assertIsNone(faults.call_site(stack[1:]))
        allocator_only = stack[:10]
        self.assertTrue(allocator_only[-1].endswith("__kmalloc_cache_noprof+0x6f/0x380"))
        self.assertIsNone(faults.call_site(allocator_only))

    def test_result_line(self) -> None:
        """fault_bind's last line: N, the bind's exit status, what was left
        of N (0: the fault was injected) and whether the NIC is bound."""
        m = faults.FI.search(lines("faults-e1000-probe.log")[-1])
        assert m is not None
        self.assertEqual(m.groups(), ("3", "1", "0", "0"))
        m = faults.FI.search("FI n=41 rc=0 left=3 bound=1")
        assert m is not None
        self.assertEqual(m.groups(), ("41", "0", "3", "1"))

    def test_setup_script_braces(self) -> None:
        """SETUP goes through str.format(): its shell functions come out
        with single braces and no field left."""
        script = faults.SETUP.format()
        self.assertIn("bound() { test -e /sys/bus/pci/devices/$1/driver", script)
        self.assertIn("fault_bind() {\n", script)
        self.assertNotIn("{{", script)
        self.assertIn('echo "FI n=$3 rc=$rc left=$left bound=$(bound $2)"', script)


class FaultGuest:
    """The guest of one boot of faults.Driver: fault_bind fails binds
    whose N is at most @points (N = 1 in the sysfs buffer, the others in
    the probe); with @leak a failed probe keeps its number, with @claim
    it takes the lowest number nobody owns, says so, and owns it where the
    driver counts failed probes."""

    def __init__(self, boards: fakes.Boards, points: int, leak: bool,
                 claim: bool = False) -> None:
        self.boards, self.points, self.leak, self.claim = boards, points, leak, claim
        self.pending: list[str] = []
        self.qmp = self
        self.console_log = Path("console.log")
        self.commands: list[str] = []
        # Hot-added NICs whose probe the console has not shown yet: the
        # agent has no interface for them until then, as in a guest that
        # handles the ACPI hot-plug event after device_add has returned.
        # The agent does not listen in these boots (faults.SETUP kills
        # it), so the console has the kernel's lines only.
        self.probing: set[str] = set()

    def command(self, name: str, **args: str) -> None:
        """QMP: device_add on pci.0, at slot @addr."""
        assert name == "device_add" and args["bus"] == "pci.0", (name, args)
        pci = f"0000:00:{int(args['addr'], 16):02x}.0"
        self.pending += self.boards.bind(pci) + [
            f"[   30.000000] e1000 {pci} eth0: Intel(R) PRO/1000 Network Connection"]
        self.probing.add(pci)

    def collect_until(self, pattern: str, timeout: float) -> tuple[list[str], re.Match[str]]:
        """The console up to the first line matching @pattern; the probes
        it shows are done."""
        regex = re.compile(pattern)
        for i, line in enumerate(self.pending):
            m = regex.search(line)
            if m:
                lines, self.pending = self.pending[:i + 1], self.pending[i + 1:]
                self.probing -= {p for p in self.probing if any(p in x for x in lines)}
                return lines, m
        raise Failure(f"console: no line matching {pattern!r}")

    def shell(self, command: str, timeout: float) -> tuple[list[str], int]:
        self.commands.append(command)
        words = command.split()
        if words[0] == "show" and words[1] in self.probing:
            # Asked before the probe: what nicwatch says without a netdev.
            return self.pending + ["NICWATCH error: no interface "], 1
        self.probing.clear()
        out, self.pending = self.pending, []
        if words[0] == "fault_bind":
            _, driver, pci, n = words
            assert driver == self.boards.spec.name
            if int(n) > self.points:
                return out + self.boards.bind(pci) + [
                    f"FI n={n} rc=0 left={int(n) - self.points} bound=1"], 0
            report = lines("faults-e1000-buffer.log" if n == "1"
                           else "faults-e1000-probe.log")
            if self.claim and n != "1":
                used = set(self.boards.owners) | set(self.boards.bound.values())
                took = min(set(range(self.boards.spec.slots)) - used)
                if self.boards.spec.failed_probe_counts:
                    self.boards.owners[took] = pci
                report.insert(0, f"[   30.000000] e1000 {pci}: board number {took}")
            elif n != "1":
                # A fault in the probe, after it took its number: kept
                # (a leak) or given back, the board owning it if first.
                if self.leak:
                    self.boards.take(pci, f"leaked-{n}")
                else:
                    self.boards.fail(pci)
            return out + report[:-1] + [f"FI n={n} rc=1 left=0 bound=0"], 0
        if words[0] == "echo" and words[-1].endswith("/bind"):
            return out + self.boards.bind(words[2]), 0
        if words[0] == "echo" and words[-1].endswith("/unbind"):
            self.boards.unbind(words[2])
            return out, 0
        if words[0] == "show":
            return out + [self.boards.show(words[1])], 0
        return out, 0  # SETUP


class RoundsTest(unittest.TestCase):
    """Driver.run() and faults.run() on guests of the stand-in."""

    def run_faults(self, points: int, max_n: int = 400, leak: bool = False,
                   claim: bool = False, flavours: tuple[str, ...] = ("patched", "plain")
                   ) -> tuple[list[tuple[str, bool, str]], list[FaultGuest]]:
        guests: list[FaultGuest] = []

        def boot(kernel: Kernel, run: str, params: list[str]) -> FaultGuest:
            self.assertIn("acpi=noirq", params)
            guest = FaultGuest(fakes.Boards("e1000", kernel.flavour == "patched"),
                               points, leak and kernel.flavour == "patched", claim)
            guests.append(guest)
            return guest

        def finish(guest: FaultGuest, kernel: Kernel, tally: Tally) -> None:
            pass

        cfg = config("7.3", {})
        kernels = {f: Kernel(cfg, f, Path("bzImage"), Path("initrd")) for f in flavours}
        with mock.patch.object(faults, "boot", boot), \
                mock.patch.object(faults, "finish", finish), \
                mock.patch.object(faults, "side_by_side", fakes.inline), \
                contextlib.redirect_stdout(io.StringIO()):
            rows = faults.run(kernels, drivers=("e1000",), max_n=max_n)
        return rows, guests

    def test_patched_passes_plain_caught(self) -> None:
        """Three failure points: each fails the bind, the clean binds and
        the spares get the numbers the model gives, the fourth N binds
        untouched; the plain kernel is caught at the first clean bind."""
        rows, guests = self.run_faults(points=3)
        self.assertEqual([(n, ok) for n, ok, _ in rows],
                         [("faults-e1000 patched", True), ("faults-e1000 plain", True)])
        self.assertTrue(rows[0][2].startswith(
            "3 failure points hit (N=1..3), 3 failed the bind, 2 call sites "
            "(devm_board_number_get x2, kernfs_fop_write_iter x1); 8 binds checked, "
            "1 boots"), rows[0][2])
        self.assertTrue(rows[1][2].startswith("plain kernel caught at cycle 1: values "),
                        rows[1][2])
        self.assertEqual(len(guests), 2, "a kernel booted more than once")
        patched, plain = guests
        self.assertEqual((patched.boards.patched, plain.boards.patched), (True, False))
        # N = 1, 2, 3, 4 in turn, each after the one before.
        self.assertEqual([c.split()[-1] for c in patched.commands
                          if c.startswith("fault_bind")], ["1", "2", "3", "4"])
        # The NIC under test is back on board 0, its own, and each spare
        # took the lowest number nobody owned, and kept it.
        self.assertEqual(patched.boards.bound, {NIC: 0, "0000:00:04.0": 1,
                                                "0000:00:05.0": 2, "0000:00:06.0": 3})
        # The plain kernel's run stops at its first violation: one boot,
        # one fault.
        self.assertEqual([c.split()[-1] for c in plain.commands
                          if c.startswith("fault_bind")], ["1"])

    def test_new_boot_after_the_spares(self) -> None:
        """More failure points than a boot has spare NICs: the rounds go on
        in a second boot, from the next N."""
        rows, guests = self.run_faults(points=faults.PER_BOOT + 1, flavours=("patched",))
        self.assertEqual(len(guests), 2)
        self.assertTrue(rows[0][1], rows[0][2])
        self.assertIn(f"(N=1..{faults.PER_BOOT + 1})", rows[0][2])
        self.assertIn(", 2 boots", rows[0][2])
        second = [c.split()[-1] for c in guests[1].commands if c.startswith("fault_bind")]
        self.assertEqual(second[0], str(faults.PER_BOOT))

    def test_leaked_number_fails_the_patched_kernel(self) -> None:
        """A failed probe that keeps its number: the next clean bind gets
        a higher one than the model's, and the patched kernel fails."""
        rows, _ = self.run_faults(points=3, leak=True)
        self.assertEqual(rows[0][:2], ("faults-e1000 patched", False))
        self.assertTrue(rows[0][2].startswith("cycle 2: values "), rows[0][2])

    def test_failed_probe_claiming_a_slot_fails_the_patched_kernel(self) -> None:
        """A failed probe of a NIC that owns board 0 but takes (and owns)
        another number, as its "board number" line says: the model follows
        the kernel's line, so the spares agree, but the patched kernel
        fails on the number the failed bind took."""
        rows, _ = self.run_faults(points=3, claim=True, flavours=("patched",))
        self.assertEqual(rows[0][:2], ("faults-e1000 patched", False))
        self.assertEqual(rows[0][2], "N=2: the failed bind took board 2, model 0")

    def test_bind_never_untouched_fails(self) -> None:
        """max_n reached with the bind still failing: no untouched bind,
        the patched kernel fails, saying so."""
        rows, _ = self.run_faults(points=10, max_n=5, flavours=("patched",))
        self.assertEqual(rows, [("faults-e1000 patched", False,
                                 "e1000: bind still hit a fault at N=5")])

    def test_points_of_one_driver(self) -> None:
        """Driver's bookkeeping: every N that hit, those that failed the
        bind, the sites, and the N past the last point."""
        kernel = Kernel(config("7.3", {}), "patched", Path("bzImage"), Path("initrd"))
        guest = FaultGuest(fakes.Boards("e1000", True), 2, False)
        with mock.patch.object(faults, "boot", lambda *_: guest), \
                mock.patch.object(faults, "finish", lambda *_: None):
            driver = faults.Driver(kernel, "e1000", 400)
            driver.run()
        self.assertEqual((driver.points.hit, driver.points.failed, driver.points.last),
                         ([1, 2], [1, 2], 3))
        self.assertEqual(dict(driver.points.sites),
                         {"kernfs_fop_write_iter": 1, "devm_board_number_get": 1})
        self.assertEqual(driver.tally.violations, [])
        self.assertEqual(driver.tally.notes, [])


if __name__ == "__main__":
    unittest.main()
