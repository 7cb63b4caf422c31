# SPDX-License-Identifier: GPL-2.0
"""The checkpatch acceptance rules (checks.checkpatch): which findings do
not fail a patch. No kernel tree: in_base() is replaced by a stub, or run
on a small git repository made for the test; the patches read are in a
patches/7.3/ of the test's own."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from checks import checkpatch
from lib.common import Config, config

DATA = Path(__file__).parent / "test_data"
# checkpatch.pl --strict --show-types output lines, as in scripts/checkpatch.pl.
CAMEL = "CHECK:CAMELCASE: Avoid CamelCase: <TxDescriptors>"
OBSOLETE_8390 = ("WARNING:OBSOLETE: drivers/net/ethernet/8390/ne2k-pci.c is marked "
                 "as 'obsolete' in the MAINTAINERS hierarchy.  No unnecessary "
                 "modifications please.")
FILES = ["drivers/net/ethernet/intel/e1000/e1000_param.c"]


def with_patches(test: unittest.TestCase, *names: str) -> Config:
    """Base 7.3's Config with the series in a repository of @test's own,
    its patches/7.3/ holding @names from test_data/."""
    tmp = tempfile.TemporaryDirectory()
    test.addCleanup(tmp.cleanup)
    cfg = dataclasses.replace(config("7.3", {}), repo=Path(tmp.name))
    cfg.patches.mkdir(parents=True)
    for name in names:
        shutil.copyfile(DATA / name, cfg.patches / name)
    return cfg


class AcceptedTest(unittest.TestCase):
    """checkpatch.accepted(cfg, finding, files)."""

    def setUp(self) -> None:
        self.cfg = with_patches(self)

    def test_camelcase_in_base(self) -> None:
        """CamelCase is accepted when the base tree's file already has the
        identifier; the lookup is for that identifier in those files."""
        with mock.patch.object(checkpatch, "in_base", return_value=True) as in_base:
            self.assertEqual(checkpatch.accepted(self.cfg, CAMEL, FILES),
                             "identifier already in the driver")
        in_base.assert_called_once_with(self.cfg, "TxDescriptors", FILES)

    def test_camelcase_new_identifier(self) -> None:
        """CamelCase that the patch brings in is refused."""
        with mock.patch.object(checkpatch, "in_base", return_value=False):
            self.assertIsNone(checkpatch.accepted(
                self.cfg, "CHECK:CAMELCASE: Avoid CamelCase: <NewBoardCount>", FILES))

    def test_obsolete_8390_only(self) -> None:
        """OBSOLETE is accepted for the 8390 drivers only."""
        with mock.patch.object(checkpatch, "in_base", return_value=True):
            self.assertEqual(checkpatch.accepted(self.cfg, OBSOLETE_8390, FILES),
                             "the fix this series is for")
            other = OBSOLETE_8390.replace("8390/ne2k-pci.c", "dec/tulip/de4x5.c")
            self.assertIsNone(checkpatch.accepted(self.cfg, other, FILES))

    def test_other_findings_refused(self) -> None:
        """Any other finding fails the patch, even when its text names an
        identifier the base tree has or mentions 8390."""
        with mock.patch.object(checkpatch, "in_base", return_value=True):
            for finding in (
                    "WARNING:LONG_LINE: line length of 101 exceeds 100 columns",
                    "ERROR:CODE_INDENT: code indent should use tabs where possible",
                    "CHECK:PARENTHESIS_ALIGNMENT: Alignment should match open "
                    "parenthesis",
                    "WARNING:TYPO_SPELLING: 'TxDescriptors' may be misspelled",
                    "WARNING:FILE_PATH_CHANGES: added, moved or deleted file(s) "
                    "in drivers/net/ethernet/8390/, does MAINTAINERS need updating?",
                    "CHECK:CAMELCASE Avoid CamelCase: <TxDescriptors>"):
                with self.subTest(finding=finding):
                    self.assertIsNone(checkpatch.accepted(self.cfg, finding, FILES))

    def test_macro_arg_reuse_in_a_define_macro_only(self) -> None:
        """MACRO_ARG_REUSE is accepted for an argument of a DEFINE_*()
        macro the patch adds, and refused for any other macro's."""
        finding = "CHECK:MACRO_ARG_REUSE: Macro argument reuse '_name' - possible side-effects?"
        define = ("+#define DEFINE_STATIC_BOARD_NUMBERS(_name, _slots, _instead)\t\\\n"
                  "+\tstatic DECLARE_BITMAP(_name##_released, _slots);\n")
        other = "+#define board_value(_name, nr) ((_name)[nr] + (_name)[nr])\n"
        for text, want in ((define, "an argument of a DEFINE_ macro, used in "
                            "declarations only"), (other, None)):
            with self.subTest(macro=text.split("(")[0]):
                (self.cfg.patches / "p.patch").write_text(text)
                self.assertEqual(checkpatch.accepted(self.cfg, finding, FILES, "p.patch"),
                                 want)

    def test_missing_fixes_accepted_only_when_left_open(self) -> None:
        """stable@ without Fixes: passes only in a set whose cover letter
        lists the tag as open before sending (send-prep then refuses it)."""
        finding = ("WARNING:MISSING_FIXES_TAG: The commit message has 'stable@', "
                   "perhaps it also needs a 'Fixes:' tag?")
        cfg = with_patches(self)
        (cfg.patches / "11-x").mkdir()
        cover = cfg.patches / "11-x" / "0000-cover-letter.patch"
        cover.write_text("Subject: [PATCH 0/2] x\n\nThree fixes.\n")
        self.assertIsNone(checkpatch.accepted(cfg, finding, FILES, "11-x/0002-a.patch"))
        cover.write_text("Subject: [PATCH 0/2] x\n\nOpen before sending: the Fixes:\n"
                         "ids of patches 2 and 3.\n\nTested.\n")
        self.assertIn("open before sending",
                      checkpatch.accepted(cfg, finding, FILES, "11-x/0002-a.patch") or "")
        cover.write_text("Subject: [PATCH 0/2] x\n\nOpen before sending: a Cc:.\n\n"
                         "Fixes: elsewhere.\n")
        self.assertIsNone(checkpatch.accepted(cfg, finding, FILES, "11-x/0002-a.patch"))

    def test_typo_accepted_only_in_a_fixes_subject(self) -> None:
        """A word codespell flags passes only where the patch has it in
        the quoted subject of a Fixes: tag, which must stay as the fixed
        commit's."""
        finding = ("WARNING:TYPO_SPELLING: 'Conexant' may be misspelled - "
                   "perhaps 'Connexant'?")
        fixes = ('Fixes: 1a0adaf37c30 ("V4L/DVB (5345): ivtv driver for '
                 'Conexant cx23416/cx23415 MPEG encoder/decoder")\n')
        message = "Subject: [PATCH] media: ivtv: x\n\nWhy.\n\n" + fixes
        diff = "---\n a.c | 1 +\n\n+++ b/a.c\n+\tint x;\n"
        for text, want in (
                (message + diff, "the quoted subject of the commit a Fixes: tag names"),
                (message.replace("Why.", "For Conexant cards.") + diff, None),
                (message + diff.replace("int x;", "int x; /* Conexant */"), None),
                ("Subject: x\n\nConexant.\n" + diff, None)):
            with self.subTest(text=text):
                (self.cfg.patches / "p.patch").write_text(text)
                self.assertEqual(checkpatch.accepted(self.cfg, finding, FILES, "p.patch"),
                                 want)

    def test_unknown_commit_id_ignored(self) -> None:
        """Fixes: tags cannot be looked up in a tree without history: the
        type is passed to --ignore."""
        self.assertIn("UNKNOWN_COMMIT_ID", checkpatch.IGNORED)


class FilePathTest(unittest.TestCase):
    """FILE_PATH_CHANGES: accepted only when every file the patch adds is
    covered by a MAINTAINERS entry beyond THE REST."""

    FINDING = ("WARNING:FILE_PATH_CHANGES: added, moved or deleted file(s), "
               "does MAINTAINERS need updating?")

    def setUp(self) -> None:
        self.cfg = with_patches(self, "sundance-kunit.patch")

    def test_recorded_patch_added_files(self) -> None:
        self.assertEqual(checkpatch.added_files(self.cfg, "sundance-kunit.patch"),
                         ["drivers/net/ethernet/dlink/sundance_options_kunit.c"])

    def test_covered_accepted(self) -> None:
        with mock.patch.object(checkpatch, "covered", return_value=True) as covered:
            self.assertEqual(checkpatch.accepted(self.cfg, self.FINDING, FILES,
                                                 "sundance-kunit.patch"),
                             "the added files are covered by MAINTAINERS")
        covered.assert_called_once_with(
            self.cfg, "drivers/net/ethernet/dlink/sundance_options_kunit.c")

    def test_uncovered_refused(self) -> None:
        with mock.patch.object(checkpatch, "covered", return_value=False):
            self.assertIsNone(checkpatch.accepted(self.cfg, self.FINDING, FILES,
                                                  "sundance-kunit.patch"))


class InBaseTest(unittest.TestCase):
    """checkpatch.in_base() on a two-commit git repository standing in
    for build/linux: branch base, then a commit of the series."""

    _dir: tempfile.TemporaryDirectory[str]
    cfg: Config
    tree: Path

    @classmethod
    def setUpClass(cls) -> None:
        cls._dir = tempfile.TemporaryDirectory(prefix="checkpatch-test-")
        cls.cfg = config("7.3", {"BOARD_NUMBERS_BUILD": cls._dir.name})
        cls.tree = cls.cfg.tree
        cls.tree.mkdir()
        param = cls.tree / "drivers/net/ethernet/intel/e1000/e1000_param.c"
        param.parent.mkdir(parents=True)
        param.write_text("E1000_PARAM(TxDescriptors, \"Number of transmit descriptors\");\n")
        (cls.tree / "other.c").write_text("static int NewBoardCount;\n")
        # A file with a line over 80 columns (a tab is 8), and one without.
        (cls.tree / "wide.c").write_text("\t" + "x" * 73 + ";\n")
        (cls.tree / "narrow.c").write_text("\t" + "x" * 71 + ";\n")
        cls.git("init", "-q", "-b", "base")
        cls.git("add", "-A")
        cls.git("commit", "-q", "-m", "base")
        cls.git("checkout", "-q", "-b", "series")
        param.write_text(param.read_text() + "static int BoardSlotCount;\n")
        cls.git("commit", "-q", "-am", "series")

    @classmethod
    def tearDownClass(cls) -> None:
        cls._dir.cleanup()

    @classmethod
    def git(cls, *args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t",
                        "-c", "commit.gpgsign=false", *args],
                       cwd=cls.tree, check=True, capture_output=True)

    def test_lookup(self) -> None:
        """Found only as a whole word, in the named files, on branch base."""
        cfg = self.cfg
        self.assertTrue(checkpatch.in_base(cfg, "TxDescriptors", FILES))
        self.assertFalse(checkpatch.in_base(cfg, "TxDesc", FILES))
        self.assertFalse(checkpatch.in_base(cfg, "NewBoardCount", FILES))
        self.assertTrue(checkpatch.in_base(cfg, "NewBoardCount", ["other.c"]))
        self.assertFalse(checkpatch.in_base(cfg, "BoardSlotCount", FILES))

    def test_accepted_end_to_end(self) -> None:
        """accepted() with the real lookup: the driver's own parameter name
        passes, a CamelCase name the series brings in fails."""
        self.assertIsNotNone(checkpatch.accepted(self.cfg, CAMEL, FILES))
        self.assertIsNone(checkpatch.accepted(
            self.cfg, "CHECK:CAMELCASE: Avoid CamelCase: <BoardSlotCount>", FILES))


    def test_long_lines_where_the_file_has_them(self) -> None:
        """LONG_LINE passes in a file whose base version already goes past
        80 columns, fails in one that follows 80, and in a file the base
        does not have (one the series adds)."""
        finding = "WARNING:LONG_LINE: line length of 84 exceeds 80 columns"
        cfg = self.cfg
        self.assertIsNotNone(checkpatch.accepted(cfg, finding, FILES, "", "wide.c"))
        self.assertIsNone(checkpatch.accepted(cfg, finding, FILES, "", "narrow.c"))
        self.assertIsNone(checkpatch.accepted(cfg, finding, FILES, "", "new_kunit.c"))
        self.assertIsNone(checkpatch.accepted(cfg, finding, FILES, "", ""))


class FindingsTest(unittest.TestCase):
    """checkpatch.findings_of(): each finding with the file it names."""

    def test_file_of_each_finding(self) -> None:
        output = ("WARNING:LONG_LINE: line length of 84 exceeds 80 columns\n"
                  "#52: FILE: drivers/net/ethernet/fealnx_options_kunit.c:81:\n"
                  "+\t\tKUNIT_EXPECT_EQ(...);\n\n"
                  "CHECK:CAMELCASE: Avoid CamelCase: <TxDescriptors>\n"
                  "#90: FILE: drivers/net/ethernet/intel/e1000/e1000_param.c:7:\n")
        self.assertEqual(checkpatch.findings_of(output), [
            ("WARNING:LONG_LINE: line length of 84 exceeds 80 columns",
             "drivers/net/ethernet/fealnx_options_kunit.c"),
            ("CHECK:CAMELCASE: Avoid CamelCase: <TxDescriptors>",
             "drivers/net/ethernet/intel/e1000/e1000_param.c")])


class PatchedFilesTest(unittest.TestCase):
    """checkpatch.patched_files() on a patch of the series, recorded."""

    def test_recorded_patch(self) -> None:
        """Every "+++ b/" file once, sorted; a created file counts, the
        /dev/null side and the diffstat do not."""
        cfg = with_patches(self, "sundance-kunit.patch")
        self.assertEqual(checkpatch.patched_files(cfg, "sundance-kunit.patch"), [
            "MAINTAINERS",
            "drivers/net/ethernet/dlink/Kconfig",
            "drivers/net/ethernet/dlink/sundance.c",
            "drivers/net/ethernet/dlink/sundance_options_kunit.c"])


if __name__ == "__main__":
    unittest.main()
