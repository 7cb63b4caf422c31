# SPDX-License-Identifier: GPL-2.0
"""make tree (series.tree.prepare) never drops work that patches/ does not
hold: with an uncommitted edit or an unexported commit in the tree, and
no --force, it refuses and changes nothing; with --force it puts the
tree back to the series. Run for real, with git, on a kernel "tarball"
of two files and a series of one patch made here."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import tarfile
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from lib.common import Failure, config
from series import tree
from tests import fakes

MAKEFILE = "VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\nEXTRAVERSION =\n"
DRIVER = "int board = 0;\n"


class PrepareTest(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        root = Path(tmp.name)
        self.tree = root / "build" / "linux"
        patches = root / "patches" / "7.3"
        tarball = self.tarball = root / "linux-source-7.3.tar.xz"
        self.series = patches / "series"
        self.make_tarball(root, tarball)
        self.make_series(root, patches)
        # build/linux, patches/7.3/series and the tarball, all under root.
        self.cfg = dataclasses.replace(config("7.3", {
            "BOARD_NUMBERS_BUILD": str(root / "build"), "LINUX_TARBALL": str(tarball)}),
            repo=root)
        self.state = tree.state_path(self.cfg)
        environ = mock.patch.dict(os.environ, fakes.GIT_ENV)
        environ.start()
        self.addCleanup(environ.stop)
        self.prepare(False)
        self.applied = self.git("rev-parse", "series")

    @staticmethod
    def make_tarball(root: Path, tarball: Path) -> None:
        """The packaged source: one top-level directory, as Debian's."""
        src = root / "src" / "linux-source-7.3"
        (src / "drivers").mkdir(parents=True)
        (src / "Makefile").write_text(MAKEFILE)
        (src / "drivers" / "board.c").write_text(DRIVER)
        with tarfile.open(tarball, "w:xz") as tar:
            tar.add(src, arcname="linux-source-7.3")

    @staticmethod
    def make_series(root: Path, patches: Path) -> None:
        """patches/7.3/series naming one patch to drivers/board.c."""
        scratch = root / "scratch"
        (scratch / "drivers").mkdir(parents=True)
        (scratch / "Makefile").write_text(MAKEFILE)
        (scratch / "drivers" / "board.c").write_text(DRIVER)
        fakes.git(scratch, "init", "-q", "-b", "base")
        fakes.git(scratch, "add", "-A")
        fakes.git(scratch, "commit", "-q", "-m", "base")
        (scratch / "drivers" / "board.c").write_text("int board = -1;\n")
        fakes.git(scratch, "commit", "-q", "-a", "-m", "board: start unnumbered")
        fakes.git(scratch, "format-patch", "-q", "-1", "-o", str(patches))
        names = sorted(p.name for p in patches.glob("0001-*.patch"))
        (patches / "series").write_text("# the series\n" + "\n".join(names) + "\n")

    def prepare(self, force: bool) -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            tree.prepare(self.cfg, force)

    def git(self, *args: str) -> str:
        return fakes.git(self.tree, *args)

    def snapshot(self) -> tuple[str, str, str, str]:
        """What prepare must leave alone: the branch, the working tree's
        state, the edited file and the saved state."""
        return (self.git("rev-parse", "series"), self.git("status", "--porcelain"),
                (self.tree / "drivers" / "board.c").read_text(),
                self.state.read_text())

    def test_prepared_tree(self) -> None:
        """The control: the tree is the tarball as a base commit and the
        series on branch series, recorded as applied."""
        self.assertEqual(self.git("rev-list", "--count", "base..series"), "1")
        self.assertEqual((self.tree / "drivers" / "board.c").read_text(),
                         "int board = -1;\n")
        state = json.loads(self.state.read_text())
        self.assertEqual(state["applied"], self.applied)
        self.assertEqual(state["version"], "7.3.4")
        self.assertEqual(state["tarball"],
                         hashlib.sha256(self.tarball.read_bytes()).hexdigest())
        self.assertEqual(tree.unexported_work(self.cfg), "")
        self.prepare(False)  # up to date: nothing to refuse or do
        self.assertEqual(self.git("rev-parse", "series"), self.applied)

    def test_uncommitted_edit_refused(self) -> None:
        """An edit not committed: refused without --force, the edit kept."""
        (self.tree / "drivers" / "board.c").write_text("int board = 7;\n")
        before = self.snapshot()
        with self.assertRaisesRegex(Failure, r"(?s)work that patches/ does not hold.*"
                                    r"uncommitted changes:.*drivers/board\.c"):
            self.prepare(False)
        self.assertEqual(self.snapshot(), before)

    def test_unexported_commit_refused(self) -> None:
        """A commit on branch series that export has not written back:
        refused without --force, the commit still on the branch."""
        (self.tree / "drivers" / "board.c").write_text("int board = 7;\n")
        self.git("commit", "-q", "-a", "-m", "board: seven")
        before = self.snapshot()
        with self.assertRaisesRegex(Failure, r"(?s)commits on branch series that were "
                                    r"not exported:.*board: seven"):
            self.prepare(False)
        self.assertEqual(self.snapshot(), before)
        self.assertEqual(self.git("log", "-1", "--format=%s", "series"), "board: seven")

    def test_refused_even_when_the_patches_changed(self) -> None:
        """With patches/ changed too (so that prepare would apply them
        again), the unexported edit is still refused and kept."""
        (self.tree / "drivers" / "board.c").write_text("int board = 7;\n")
        self.series.write_text(self.series.read_text() + "# a comment changes the digest\n")
        before = self.snapshot()
        with self.assertRaises(Failure):
            self.prepare(False)
        self.assertEqual(self.snapshot(), before)

    def test_force_drops_the_work(self) -> None:
        """With --force the commit and the edit go: the tree is the series
        again (the patches changed, so that it is applied anew)."""
        (self.tree / "drivers" / "board.c").write_text("int board = 7;\n")
        self.git("commit", "-q", "-a", "-m", "board: seven")
        (self.tree / "drivers" / "board.c").write_text("int board = 8;\n")
        self.series.write_text(self.series.read_text() + "# changed\n")
        self.prepare(True)
        self.assertEqual(self.git("log", "-1", "--format=%s", "series"),
                         "board: start unnumbered")
        self.assertEqual((self.tree / "drivers" / "board.c").read_text(),
                         "int board = -1;\n")
        self.assertEqual(tree.unexported_work(self.cfg), "")


if __name__ == "__main__":
    unittest.main()
