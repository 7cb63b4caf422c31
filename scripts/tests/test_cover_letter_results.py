# SPDX-License-Identifier: GPL-2.0
"""The figures a cover letter takes from the last run
(mail.cover_letter.figure_fields(), lib.results.load()): refused when
they are make check's short forms of the e2e and reliability runs, of
another version of the series, or of a failing run. Records and the
series tree (a small git repository with a branch series) are made
here."""

from __future__ import annotations

import tempfile
import unittest

from lib.common import Failure, config
from mail import cover_letter
from tests import fakes

E2E = [("a patched", True, "100 probes"), ("a plain", True, "caught at cycle 2")]
REL = [("async-40 patched", True, "40 NICs"), ("async-40 plain", True, "caught")]
KUNIT = [("devm_ida.alloc", True, "ok"), ("e1000_param.slot", True, "ok")]


class FieldsTest(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.cfg = config("7.3", {"BOARD_NUMBERS_ROOT": tmp.name})
        self.build = self.cfg.build
        self.series = fakes.series_tree(self.build / "linux")
        self.fields = cover_letter.figure_fields(self.cfg)

    def save(self, stage: str, rows: list[tuple[str, bool, str]], tier: str = "full",
             series: tuple[str, str] | None = None) -> None:
        fakes.record(self.build, stage, series or self.series, rows, tier=tier,
                     suites=["devm_ida", "e1000_param"])

    def test_check_depth_of_guest_runs_refused(self) -> None:
        """e2e and reliability results of make check (its short forms)
        are refused; make check-full's are used."""
        self.save("e2e", E2E, tier="check")
        self.save("reliability", REL, tier="check")
        with self.assertRaisesRegex(Failure, "results of e2e are make check's short"):
            self.fields["FINISHED"]()
        with self.assertRaisesRegex(Failure, "results of reliability are make check's"):
            self.fields["RELIABILITY"]()
        self.save("e2e", E2E, tier="full")
        self.save("reliability", REL, tier="full")
        self.assertEqual(self.fields["FINISHED"](), "2000-01-01 00:00:00 UTC")
        self.assertIn("async-40 plain: caught", self.fields["RELIABILITY"]())

    def test_check_depth_of_other_stages_used(self) -> None:
        """KUnit is the same in both tiers: make check's results are used."""
        self.save("kunit", KUNIT, tier="check")
        self.assertEqual(self.fields["KUNIT"](), "2 cases pass")
        self.assertEqual(self.fields["KUNIT_SUITES"](), "2")

    def test_another_version_of_the_series_refused(self) -> None:
        """Results of another series commit with another tree are refused,
        for every stage."""
        for stage, rows, field in (("kunit", KUNIT, "KUNIT"), ("e2e", E2E, "FINISHED"),
                                   ("reliability", REL, "RELIABILITY")):
            with self.subTest(stage=stage):
                self.save(stage, rows, series=("c" * 40, "d" * 40))
                with self.assertRaisesRegex(Failure, "not the current one"):
                    self.fields[field]()

    def test_same_tree_in_another_clone_used(self) -> None:
        """Results of the same series tree under another commit id (the
        same patches applied in another clone) are this series'."""
        self.save("e2e", E2E, series=("c" * 40, self.series[1]))
        self.assertEqual(self.fields["FINISHED"](), "2000-01-01 00:00:00 UTC")

    def test_failing_run_refused(self) -> None:
        """Results of a run with a failing case are refused."""
        self.save("e2e", [E2E[0], ("a plain", False, "plain kernel passes")])
        with self.assertRaisesRegex(Failure, "1 failed; a cover letter reports a passing"):
            self.fields["FINISHED"]()
        self.save("kunit", [KUNIT[0], ("e1000_param.slot", False, "expected 1")],
                  tier="check")
        with self.assertRaisesRegex(Failure, "1 failed"):
            self.fields["KUNIT"]()

    def test_missing_results_refused(self) -> None:
        """Without a record there is no figure."""
        with self.assertRaisesRegex(Failure, "no results of stage e2e"):
            self.fields["FINISHED"]()

    def test_debug_section_only_when_all_runs_are_of_this_series(self) -> None:
        """make check-debug's paragraph appears only when its three
        records are all there and of this series."""
        self.assertEqual(cover_letter.debug_section(self.cfg), "")
        for stage in ("e2e-debug", "e2e-debug-soak"):
            self.save(stage, [(f"{stage} debug", True, "ok")], tier="debug")
        self.save("reliability-debug", [("loops debug", True, "ok")], tier="debug",
                  series=("c" * 40, "d" * 40))
        self.assertEqual(cover_letter.debug_section(self.cfg), "")
        self.save("reliability-debug", [("loops debug", True, "ok")], tier="debug")
        text = cover_letter.debug_section(self.cfg)
        self.assertIn("the hot-plug soak: e2e-debug-soak debug: ok", " ".join(text.split()))


if __name__ == "__main__":
    unittest.main()
