# SPDX-License-Identifier: GPL-2.0
"""The bisection's warning delta (checks.bisect): warnings() keys build
output without line numbers, and `found - seen` is what a prefix adds;
touched() picks the targets a patch can break.

test_data/build-base.log is an excerpt of a CI-like run's
build/bisect/out/build-base.log (make W=1 C=1 on the base tree): make's
lines, gcc's warning with "In function" and the source excerpt (gcc names
files "../linux/...", relative to the build directory, sparse by absolute
path: both are keyed by the path in the tree), sparse's warnings
with their "expected"/"got" lines and a "note: in included file".
build-patch.log is that run's build-0004.log (patch 4, e1000) with one
gcc -Wtype-limits warning written into it, as no patch of the run brought
one. "@SRC@" and "@OUT@" stand for the worktree and build directory.
"""

from __future__ import annotations

import tempfile
import unittest
from pathlib import Path
from unittest import mock

from checks import bisect
from lib.common import Config, Failure, config

DATA = Path(__file__).parent / "test_data"
TULIP = ("drivers/net/ethernet/dec/tulip/tulip_core.c: warning: variable "
         "\u2018force_csr0\u2019 set but not used [-Wunused-but-set-variable]")
NEW = ("drivers/net/ethernet/intel/e1000/e1000_param.c: warning: "
       "comparison of unsigned expression in \u2018< 0\u2019 is always false "
       "[-Wtype-limits]")


def recorded(name: str) -> str:
    """A build log from test_data/, with this checkout's paths where the
    log has "@SRC@" and "@OUT@"."""
    cfg = config("7.3", {})
    return ((DATA / name).read_text().replace("@SRC@", str(bisect.src_dir(cfg)))
            .replace("@OUT@", str(bisect.out_dir(cfg))))


class WarningsTest(unittest.TestCase):
    """warnings() on recorded make W=1 C=1 output."""

    def setUp(self) -> None:
        self.cfg = config("7.3", {})

    def test_keys(self) -> None:
        """gcc's and sparse's warnings are keyed by file and text and
        counted; make's lines, "In function", source excerpts, sparse's
        "expected"/"got" lines and notes are not warnings."""
        found = bisect.warnings(self.cfg, recorded("build-base.log"))
        via = "drivers/net/ethernet/via/via-velocity"
        self.assertEqual(found, {
            "drivers/net/ethernet/3com/3c59x.c: warning: restricted pci_power_t "
            "degrades to integer": 2,
            "drivers/net/ethernet/8390/ne2k-pci.c: warning: cast to restricted __le32": 2,
            TULIP: 1,
            f"{via}.h: warning: mixed bitwiseness": 1,
            f"{via}.c: warning: incorrect type in initializer (different address "
            "spaces)": 1,
            f"{via}.c: warning: incorrect type in argument 2 (different base types)": 1,
        })

    def test_kernel_doc(self) -> None:
        """kernel-doc's "file:line: warning:" lines (no column) count too."""
        found = bisect.warnings(
            self.cfg, "drivers/net/ethernet/8390/ne2k-pci.c:198: warning: Function parameter "
            "or struct member 'dev' not described in 'ne2k_pci_reset_options'\n"
            "drivers/net/ethernet/8390/ne2k-pci.c:201: warning: expecting prototype "
            "for ne2k_reset(). Prototype was for ne2k_pci_reset_options() instead\n")
        self.assertEqual(sorted(found), [
            "drivers/net/ethernet/8390/ne2k-pci.c: warning: Function parameter or "
            "struct member 'dev' not described in 'ne2k_pci_reset_options'",
            "drivers/net/ethernet/8390/ne2k-pci.c: warning: expecting prototype for "
            "ne2k_reset(). Prototype was for ne2k_pci_reset_options() instead"])

    def test_python_kernel_doc(self) -> None:
        """The Python kernel-doc of Linux 7.3 says "Warning: FILE:LINE TEXT":
        keyed as the Perl one's "FILE:LINE: warning: TEXT" is."""
        perl = bisect.warnings(
            self.cfg, "drivers/net/ethernet/via/via-velocity.c:396: warning: No description "
            "found for return value of 'get_chip_name'\n")
        python = bisect.warnings(
            self.cfg, "Warning: drivers/net/ethernet/via/via-velocity.c:395 No description "
            "found for return value of 'get_chip_name'\n"
            "Error: drivers/base/devres.c:12 Cannot parse struct or union!\n")
        perl["drivers/base/devres.c: error: Cannot parse struct or union!"] += 1
        self.assertEqual(python, perl)

    def test_path_prefix_dropped(self) -> None:
        """A warning printed with the worktree's absolute path has the same
        key as one printed with the path in the tree."""
        line = "drivers/base/devres.c:12:3: warning: unused variable 'x'"
        src = bisect.src_dir(self.cfg)
        self.assertEqual(bisect.warnings(self.cfg, f"{src}/{line}"),
                         bisect.warnings(self.cfg, line))

    def test_error_kept_apart(self) -> None:
        """An error is keyed as an error, not as the warning of that text."""
        found = bisect.warnings(self.cfg, "drivers/base/devres.c:1:2: error: expected ';'\n"
                                "drivers/base/devres.c:1:2: note: in expansion")
        self.assertEqual(found, {"drivers/base/devres.c: error: expected ';'": 1})


class DeltaTest(unittest.TestCase):
    """The new warnings of a prefix: bisect.new_warnings(found, seen)."""

    def setUp(self) -> None:
        self.cfg = config("7.3", {})
        self.seen = bisect.warnings(self.cfg, recorded("build-base.log"))

    def test_new_warning(self) -> None:
        """A warning the base did not have is new; nothing else in the
        patch's build is."""
        new = bisect.new_warnings(bisect.warnings(self.cfg, recorded("build-patch.log")),
                                  self.seen)
        self.assertEqual(dict(new), {NEW: 1})

    def test_moved_warning_not_new(self) -> None:
        """The same warnings on other lines (the patch added lines above
        them) are not new."""
        moved = (recorded("build-base.log")
                 .replace("tulip_core.c:1309:22:", "tulip_core.c:1322:22:")
                 .replace("ne2k-pci.c:515:31:", "ne2k-pci.c:530:31:"))
        self.assertNotEqual(moved, recorded("build-base.log"))
        self.assertEqual(bisect.new_warnings(bisect.warnings(self.cfg, moved), self.seen), {})

    def test_second_copy_is_new(self) -> None:
        """A second copy of a warning the base had once is new, once; a
        third copy of one it had twice, too."""
        tulip = TULIP.replace(": warning:", ":1400:9: warning:")
        ne2k = (f"{bisect.src_dir(self.cfg)}/drivers/net/ethernet/8390/ne2k-pci.c:600:12: "
                "warning: cast to restricted __le32")
        new = bisect.new_warnings(
            bisect.warnings(self.cfg, f"{recorded('build-base.log')}{tulip}\n{ne2k}\n"),
            self.seen)
        self.assertEqual(new, {TULIP: 1, "drivers/net/ethernet/8390/ne2k-pci.c: "
                               "warning: cast to restricted __le32": 1})

    def test_gone_warning_not_counted(self) -> None:
        """A warning that a patch removed makes no negative count."""
        new = bisect.new_warnings(bisect.warnings(self.cfg, ""), self.seen)
        self.assertEqual(new, {})
        self.assertFalse(new)


class SparseTest(unittest.TestCase):
    """Sparse where the tree takes it: sparse_refused() asks the tree's
    scripts/checker-valid.sh, and build() fails when kbuild turns C=1 off
    all the same."""

    def tree(self, answer: str) -> Config:
        """A base whose bisect worktree has a checker-valid.sh that answers
        @answer, as 7.3's does for a sparse without __typeof_unqual__ ("0")
        or 6.12's for any ("1")."""
        build = Path(tempfile.mkdtemp())
        self.addCleanup(lambda: __import__("shutil").rmtree(build))
        cfg = config("7.3", {"BOARD_NUMBERS_BUILD": str(build)})
        root = bisect.src_dir(cfg)
        (root / "scripts").mkdir(parents=True)
        (root / "scripts" / "checker-valid.sh").write_text(
            f"# __typeof_unqual__(*q) v = *q;\necho {answer}\n")
        return cfg

    def test_refused_says_why(self) -> None:
        why = bisect.sparse_refused(self.tree("0"))
        self.assertIn("refuses sparse", why)
        self.assertIn("__typeof_unqual__", why)

    def test_taken(self) -> None:
        self.assertEqual(bisect.sparse_refused(self.tree("1")), "")

    def test_sparse_turned_off_fails(self) -> None:
        """kbuild's "C=1 specified, but sparse is not available" when sparse
        was meant to run is a failure, not a pass without sparse."""
        out = ("Makefile:1311: C=1 specified, but sparse is not available or "
               "not up to date\n  CC      drivers/base/devres.o\n")
        # present() as if the worktree had the file: a clean clone has no
        # worktree yet when the harness runs.
        with tempfile.TemporaryDirectory() as build:
            cfg = config("7.3", {"BOARD_NUMBERS_BUILD": build})
            bisect.out_dir(cfg).mkdir(parents=True)
            with mock.patch.object(bisect, "make", return_value=(0, out)), \
                    mock.patch.object(bisect, "present", side_effect=lambda t, _: t):
                with self.assertRaises(Failure):
                    bisect.build(cfg, "t", ["drivers/base/devres.o"], kconfig=False)
                # Told not to run sparse (a tree that refuses it), no failure.
                code, _, _ = bisect.build(cfg, "t", ["drivers/base/devres.o"],
                                          kconfig=False, sparse=False)
        self.assertEqual(code, 0)


class TouchedTest(unittest.TestCase):
    """touched(): the targets a patch's files can break."""

    def setUp(self) -> None:
        self.cfg = config("6.12", {})
        self.every = bisect.targets(self.cfg)

    def touched(self, files: list[str]) -> list[str]:
        return bisect.touched(self.cfg, files)

    def test_driver_directory(self) -> None:
        """A file in a driver's own directory picks that directory's
        target, not its neighbour's of a similar name."""
        self.assertEqual(self.touched(["drivers/net/ethernet/intel/e1000/e1000_main.c"]),
                         ["drivers/net/ethernet/intel/e1000/"])
        self.assertEqual(self.touched(["drivers/net/ethernet/intel/e1000e/param.c",
                                       "drivers/net/ethernet/intel/e1000e/Kconfig"]),
                         ["drivers/net/ethernet/intel/e1000e/"])

    def test_object_targets(self) -> None:
        """A file beside object targets picks every object in its
        directory, and nothing from a subdirectory's target."""
        self.assertEqual(self.touched(["drivers/net/ethernet/amd/pcnet32.c"]),
                         ["drivers/net/ethernet/amd/pcnet32.o",
                          "drivers/net/ethernet/amd/amd8111e.o"])
        self.assertEqual(self.touched(["drivers/base/devres.c"]),
                         ["drivers/base/devres.o", "drivers/base/board_numbers.o"])
        self.assertEqual(self.touched(["drivers/net/ethernet/8390/ne2k-pci.c"]),
                         ["drivers/net/ethernet/8390/ne2k-pci.o"])

    def test_subdirectory_of_a_directory_target(self) -> None:
        """A file in a subdirectory of a directory target picks it."""
        self.assertEqual(self.touched(["drivers/base/test/devm_ida_kunit.c"]),
                         ["drivers/base/test/"])
        self.assertEqual(self.touched(["drivers/net/ethernet/dec/tulip/tulip_core.c"]),
                         ["drivers/net/ethernet/dec/tulip/"])

    def test_sound_media_usb_hid_objects(self) -> None:
        """ALSA and media drivers are object targets: a file picks the
        objects of its own directory, not the whole of sound/pci/."""
        self.assertEqual(self.touched(["sound/pci/ice1712/ice1724.c"]),
                         ["sound/pci/ice1712/ice1712.o", "sound/pci/ice1712/ice1724.o"])
        self.assertEqual(self.touched(["sound/core/init.c"]),
                         ["sound/core/init.o", "sound/core/sound_kunit.o"])
        self.assertEqual(self.touched(["drivers/usb/atm/ueagle-atm.c"]),
                         ["drivers/usb/atm/ueagle-atm.o"])

    def test_unbuilt(self) -> None:
        """A C file that no target compiles is named, also beside object
        targets of its directory; headers, docs and built files are not."""
        with tempfile.TemporaryDirectory() as root:
            cfg = config("6.12", {"BOARD_NUMBERS_ROOT": root})
            self.assertEqual(bisect.unbuilt(cfg, [
                "sound/isa/als100.c", "sound/pci/cmi8788.c", "sound/pci/ens1370.c",
                "drivers/net/ethernet/intel/e1000/e1000_param.c",
                "scripts/coccinelle/api/board_numbers.cocci",
                "Documentation/networking/e1000.rst", "include/sound/core.h",
                "drivers/media/radio/radio-sf16fmr2.c",
                "drivers/media/radio/radio-gemtek.c"]),
                ["sound/isa/als100.c", "sound/pci/cmi8788.c",
                 "drivers/media/radio/radio-gemtek.c"])

    def test_included_file_is_built(self) -> None:
        """A file that an object target of its directory includes is
        compiled with it (au8830.c includes au88x0.c); one that it does
        not include is not."""
        with tempfile.TemporaryDirectory() as root:
            cfg = config("6.12", {"BOARD_NUMBERS_ROOT": root})
            au = bisect.src_dir(cfg) / "sound/pci/au88x0"
            au.mkdir(parents=True)
            (au / "au8830.c").write_text('#define CHIP_AU8830\n#include "au88x0.c"\n')
            self.assertEqual(bisect.unbuilt(cfg, ["sound/pci/au88x0/au88x0.c",
                                                  "sound/pci/au88x0/au88x0_a3d.c"]),
                             ["sound/pci/au88x0/au88x0_a3d.c"])

    def test_include_builds_all(self) -> None:
        """A header under include/ can break every target."""
        self.assertEqual(self.touched(["include/linux/devm-helpers.h"]), self.every)
        self.assertEqual(self.touched(["drivers/base/devres.c",
                                       "include/linux/device.h"]), self.every)

    def test_targets_present_in_the_tree(self) -> None:
        """A target whose source the checked-out prefix lacks (a file
        the series adds) is not built: on a fresh build directory make
        would fail on it."""
        with tempfile.TemporaryDirectory() as name:
            tree = Path(name)
            (tree / "drivers/base/test").mkdir(parents=True)
            (tree / "drivers/base/devres.c").write_text("")
            self.assertEqual(bisect.present(["drivers/base/devres.o",
                                             "drivers/base/board_numbers.o",
                                             "drivers/base/test/",
                                             "drivers/net/ethernet/dlink/"], tree),
                             ["drivers/base/devres.o", "drivers/base/test/"])
            (tree / "drivers/base/board_numbers.c").write_text("")
            self.assertIn("drivers/base/board_numbers.o",
                          bisect.present(["drivers/base/board_numbers.o"], tree))

    def test_unrelated_files(self) -> None:
        """Documentation and MAINTAINERS build nothing."""
        self.assertEqual(self.touched(["MAINTAINERS",
                                       "Documentation/networking/device_drivers/"
                                       "ethernet/intel/e1000.rst"]), [])


if __name__ == "__main__":
    unittest.main()
