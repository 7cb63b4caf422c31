# SPDX-License-Identifier: GPL-2.0
"""guest.session.boot(), the one boot of e2e, the reliability runs and
the userspace path, with guest.machine.Guest replaced by a recorder: what
QEMU and the kernel are given, the timeouts, and a guest that does not
come up being stopped. No QEMU."""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Any
from unittest import mock

from guest import kmemleak, session
from guest.session import Kernel
from lib.common import Failure, config


class FakeGuest:
    """What boot() gives Guest and asks of it."""

    made: list[FakeGuest] = []

    def __init__(self, workdir: Path, kernel: Path, initrd: Path,
                 kernel_args: list[str], **kwargs: Any) -> None:
        self.workdir, self.kernel, self.initrd = workdir, kernel, initrd
        self.kernel_args, self.kwargs = kernel_args, kwargs
        self.ready: list[float] = []
        self.stopped = False
        self.fail_ready = False
        FakeGuest.made.append(self)

    def wait_ready(self, timeout: float) -> None:
        self.ready.append(timeout)
        if self.fail_ready:
            raise Failure("console: no line matching '(SHELL|NICWATCH) ready'")

    def stop(self) -> None:
        self.stopped = True


class BootTest(unittest.TestCase):
    def setUp(self) -> None:
        self.cfg = config("7.3", {})
        FakeGuest.made = []
        self.marks: list[tuple[FakeGuest, float]] = []
        def mark_boot(guest: FakeGuest, timeout: float) -> None:
            self.marks.append((guest, timeout))

        guest = mock.patch.object(session, "Guest", FakeGuest)
        mark = mock.patch.object(kmemleak, "mark_boot", mark_boot)
        guest.start()
        self.addCleanup(guest.stop)
        mark.start()
        self.addCleanup(mark.stop)

    def test_reliability_boot(self) -> None:
        """The reliability runs' boot: the console in build/rel/RUN-KERNEL,
        the run's parameters, QEMU's arguments in order, 180 s for QMP and
        for the agent, no kmemleak mark on a kernel without a variant."""
        kernel = Kernel(self.cfg, "plain", Path("bzImage"), Path("initrd"))
        guest = session.boot(kernel, "loops", ["a=1"], ["-device", "x"], memory=512)
        assert isinstance(guest, FakeGuest)
        self.assertEqual(guest.workdir, self.cfg.build / "rel" / "loops-plain")
        self.assertEqual((guest.kernel, guest.initrd), (Path("bzImage"), Path("initrd")))
        self.assertEqual(guest.kernel_args, ["a=1"])
        self.assertEqual(guest.kwargs, {"extra_args": ["-device", "x", "-m", "512"],
                                        "boot_timeout": 180.0})
        self.assertEqual(guest.ready, [180.0])
        self.assertEqual(self.marks, [])

    def test_debug_kernel(self) -> None:
        """The debug variant's arguments follow the run's (none twice), and
        boot's own leaks are marked, with the boot's timeout."""
        kernel = Kernel(self.cfg, "patched", Path("bzImage"), Path("initrd"), "debug")
        guest = session.boot(kernel, "async", ["x=1", "acpi=noirq"], timeout=300)
        assert isinstance(guest, FakeGuest)
        self.assertEqual(guest.workdir, self.cfg.build / "rel" / "async-patched-debug")
        self.assertEqual(guest.kernel_args, ["x=1", "acpi=noirq"])
        self.assertEqual(guest.kwargs["extra_args"], ["-m", "1024"])
        self.assertEqual(self.marks, [(guest, 300)])

    def test_e2e_boot(self) -> None:
        """e2e's boot: its own directory, 60 s for QMP and 120 s for the
        agent and the kmemleak mark."""
        kernel = Kernel(self.cfg, "patched", Path("bzImage"), Path("initrd"), "debug")
        guest = session.boot(kernel, "a", ["dyndbg"], ["-trace", "t"], timeout=120.0,
                             qmp_timeout=60.0, workdir=Path("build/e2e/a-patched"))
        assert isinstance(guest, FakeGuest)
        self.assertEqual(guest.workdir, Path("build/e2e/a-patched"))
        self.assertEqual(guest.kernel_args, ["dyndbg", "acpi=noirq"])
        self.assertEqual(guest.kwargs, {"extra_args": ["-trace", "t", "-m", "1024"],
                                        "boot_timeout": 60.0})
        self.assertEqual(guest.ready, [120.0])
        self.assertEqual(self.marks, [(guest, 120.0)])

    def test_guest_that_does_not_come_up_is_stopped(self) -> None:
        """The agent not reporting stops the guest, and the error goes on."""
        original = FakeGuest.wait_ready

        def never_ready(guest: FakeGuest, timeout: float) -> None:
            guest.fail_ready = True
            original(guest, timeout)

        kernel = Kernel(self.cfg, "patched", Path("bzImage"), Path("initrd"))
        with mock.patch.object(FakeGuest, "wait_ready", never_ready), \
                self.assertRaisesRegex(Failure, "NICWATCH"):
            session.boot(kernel, "params1", [])
        self.assertTrue(FakeGuest.made[-1].stopped)


if __name__ == "__main__":
    unittest.main()
