# SPDX-License-Identifier: GPL-2.0
"""lib.toolroot: a root is made once when two stages ask for it at once."""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
import time
import unittest
from pathlib import Path
from unittest import mock

from lib import toolroot


class EnsureTest(unittest.TestCase):
    def test_two_workers_make_the_root_once(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            root = toolroot.Root("test-root", "bookworm", ("udev",), "the test")
            calls: list[str] = []
            overlaps: list[str] = []
            inside = threading.Semaphore(1)

            def debootstrap(cmd: list[str], **_: object) -> subprocess.CompletedProcess[str]:
                calls.append(cmd[-2])
                # A second debootstrap while one runs is the race.
                if not inside.acquire(blocking=False):
                    overlaps.append(cmd[-2])
                    return subprocess.CompletedProcess(cmd, 1, "", "")
                Path(cmd[-2], "etc").mkdir(parents=True)
                time.sleep(0.2)
                inside.release()
                return subprocess.CompletedProcess(cmd, 0, "", "")

            with mock.patch.multiple(toolroot, CACHE=Path(tmp), run=debootstrap), \
                    mock.patch.object(os, "geteuid", return_value=0), \
                    mock.patch("shutil.which", return_value="/usr/sbin/debootstrap"):
                workers = [threading.Thread(target=root.ensure) for _ in range(2)]
                for w in workers:
                    w.start()
                for w in workers:
                    w.join(10)
            self.assertEqual(overlaps, [])
            self.assertEqual(len(calls), 1)
            self.assertTrue(Path(tmp, "test-root", "etc", "board-numbers-toolroot").is_file())


if __name__ == "__main__":
    unittest.main()
