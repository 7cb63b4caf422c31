# SPDX-License-Identifier: GPL-2.0
"""The gate's KTAP document (gate.ktap.document()), read line by line and,
where a kernel tree is at hand, by the kernel's own KTAP parser."""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import unittest
from pathlib import Path
from unittest import mock

from gate.ktap import StageVerdict, document
from lib.common import config

STAGES = [
    StageVerdict("kunit", [("e1000_param.slot_of_board", True, "ok"),
                           ("e1000_param.reset_slot", False,
                            "Expected tx == 256, but\n    tx == 512")],
                 base="6.12.57"),
    StageVerdict("e2e", skip="no QEMU on this machine"),
    StageVerdict("checkpatch", [("0017-ne2k-pci fix #2", True, "1 accepted findings"),
                                ("0018-ne2k-pci", True, "")]),
]


class DocumentTest(unittest.TestCase):
    """document() line by line."""

    def setUp(self) -> None:
        self.lines = document(STAGES).splitlines()

    def test_header_and_plan(self) -> None:
        """KTAP version 1, then the plan of one test per stage."""
        self.assertEqual(self.lines[:2], ["KTAP version 1", "1..3"])
        self.assertTrue(document(STAGES).endswith("\n"))

    def test_subtest_per_stage(self) -> None:
        """A stage that ran is a subtest: its version line, name, plan of
        its cases, then one result line per case and its own result."""
        start = self.lines.index("    # Subtest: kunit")
        self.assertEqual(self.lines[start - 1], "    KTAP version 1")
        self.assertEqual(self.lines[start + 1], "    1..2")
        self.assertEqual(self.lines[start + 2], "    # base: 6.12.57")
        self.assertIn("    ok 1 e1000_param.slot_of_board", self.lines)
        self.assertIn("    1..2", self.lines[self.lines.index("    # Subtest: checkpatch"):])

    def test_failing_case_fails_stage(self) -> None:
        """A failing case is "not ok", and so is its stage; a stage whose
        cases all pass is "ok"."""
        self.assertIn("    not ok 2 e1000_param.reset_slot", self.lines)
        self.assertIn("not ok 1 kunit", self.lines)
        self.assertIn("ok 3 checkpatch", self.lines)

    def test_skipped_stage(self) -> None:
        """A stage not run is one "ok N name # SKIP reason" line."""
        self.assertIn("ok 2 e2e # SKIP no QEMU on this machine", self.lines)
        self.assertNotIn("    # Subtest: e2e", self.lines)

    def test_hash_in_names(self) -> None:
        """A "#" in a name would start a directive: it is replaced."""
        case = next(line for line in self.lines if "0017" in line)
        self.assertEqual(case, "    ok 1 0017-ne2k-pci fix no.2")
        doc = document([StageVerdict("e2e", skip="see #12\nand more")])
        self.assertIn("ok 1 e2e # SKIP see no.12 and more", doc.splitlines())

    def test_details_as_diagnostics(self) -> None:
        """A case's detail goes on "# " lines before its result line, one
        per line of detail, blank ones left out."""
        at = self.lines.index("    not ok 2 e1000_param.reset_slot")
        self.assertEqual(self.lines[at - 2:at],
                         ["    # Expected tx == 256, but", "    #     tx == 512"])
        at = self.lines.index("    ok 1 0017-ne2k-pci fix no.2")
        self.assertEqual(self.lines[at - 1], "    # 1 accepted findings")
        # An empty detail gives no diagnostic line.
        self.assertEqual(self.lines[at + 1], "    ok 2 0018-ne2k-pci")

    def test_stage_without_cases_fails(self) -> None:
        """A stage that ran no case is not ok: it proved nothing."""
        lines = document([StageVerdict("harness")]).splitlines()
        self.assertIn("    1..0", lines)
        self.assertEqual(lines[-1], "not ok 1 harness")


def kunit_tool() -> Path:
    """The kernel's kunit_tool: KUNIT_TOOL_DIR, or the tree's own of the
    base the harness runs on (build/BASE/linux; config() as its entry
    point reads it, when the test runs, not at import)."""
    tool = os.environ.get("KUNIT_TOOL_DIR")
    return Path(tool) if tool is not None else config().tree / "tools" / "testing" / "kunit"


class KernelParserTest(unittest.TestCase):
    """The document read by tools/testing/kunit/kunit_parser.py."""

    def setUp(self) -> None:
        self.tool = kunit_tool()
        if not (self.tool / "kunit_parser.py").is_file():
            self.skipTest(f"no kernel tree with kunit_parser.py at {self.tool} "
                          "(make tree, or set KUNIT_TOOL_DIR)")

    def test_kernel_parser_counts(self) -> None:
        """The kernel's parser finds the three stages, their cases and the
        skip, with no parse error."""
        sys.path.insert(0, str(self.tool))
        try:
            parser = importlib.import_module("kunit_parser")
            lines = document(STAGES).splitlines(keepends=True)
            if "printer" in inspect.signature(parser.parse_run_tests).parameters:
                # Newer kernels (7.3) hand the parser a printer: a quiet one.
                printer = importlib.import_module("kunit_printer").Printer(print=False)
                test = parser.parse_run_tests(lines, printer)
            else:
                # Older ones (6.12) print through the sys.stdout of its
                # import: quieten that.
                with mock.patch.object(parser.stdout, "print"):
                    test = parser.parse_run_tests(lines)
        finally:
            sys.path.remove(str(self.tool))
        counts = test.counts
        self.assertEqual((counts.passed, counts.failed, counts.skipped,
                          counts.crashed, counts.errors), (3, 1, 1, 0, 0))
        self.assertEqual([s.name for s in test.subtests], ["kunit", "e2e", "checkpatch"])
        status = parser.TestStatus
        self.assertEqual([s.status for s in test.subtests],
                         [status.FAILURE, status.SKIPPED, status.SUCCESS])
        self.assertEqual(test.status, status.FAILURE)
        reset = test.subtests[0].subtests[1]
        self.assertEqual(reset.name, "e1000_param.reset_slot")
        self.assertIn("    #     tx == 512", reset.log)


if __name__ == "__main__":
    unittest.main()
