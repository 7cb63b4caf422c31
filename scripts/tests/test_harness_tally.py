# SPDX-License-Identifier: GPL-2.0
"""The harness's own count (tests/__main__.py's Recorder): one row per
test, and every outcome but a pass counts as failed. The harness has no
optional tests, so a skipped test (a tool, a file or a module missing)
fails with its reason, and so do a test marked expectedFailure and one
that then passes: none of them may vanish from "N passed, M failed".
The sample tests are defined inside the test, so that the harness's
discovery does not run them on their own."""

from __future__ import annotations

import contextlib
import io
import unittest

from lib import results
from tests.__main__ import Recorder


def run_sample() -> Recorder:
    """A suite with one test of each outcome, run through Recorder."""
    class Sample(unittest.TestCase):
        def test_passes(self) -> None:
            pass

        def test_fails(self) -> None:
            self.fail("boom")

        def test_errors(self) -> None:
            raise KeyError("k")

        def test_bare_assert(self) -> None:
            raise AssertionError()

        @unittest.skip("needs QEMU")
        def test_skipped(self) -> None:
            pass

        def test_skips_itself(self) -> None:
            self.skipTest("no tarball in /usr/src\nsecond line")

        @unittest.expectedFailure
        def test_expected_failure(self) -> None:
            self.fail("known")

        @unittest.expectedFailure
        def test_unexpected_success(self) -> None:
            pass

        def test_subtests(self) -> None:
            for i in range(2):
                with self.subTest(i=i):
                    self.assertEqual(i, 0)

    suite = unittest.defaultTestLoader.loadTestsFromTestCase(Sample)
    runner = unittest.TextTestRunner(stream=io.StringIO(), verbosity=0,
                                     resultclass=Recorder)
    outcome = runner.run(suite)
    assert isinstance(outcome, Recorder)
    return outcome


class TallyTest(unittest.TestCase):
    def setUp(self) -> None:
        self.rows = {name.rsplit("Sample.", 1)[1]: (ok, detail)
                     for name, ok, detail in run_sample().rows}

    def test_skip_counts_as_failed_with_its_reason(self) -> None:
        """A skipped test is a failing row whose detail is the reason (its
        first line), whether skipped by decorator or by skipTest()."""
        self.assertEqual(self.rows["test_skipped"], (False, "skipped: needs QEMU"))
        self.assertEqual(self.rows["test_skips_itself"],
                         (False, "skipped: no tarball in /usr/src"))

    def test_declared_outcomes_count_as_failed(self) -> None:
        """A test marked expectedFailure fails the count, failing or not."""
        ok, detail = self.rows["test_expected_failure"]
        self.assertFalse(ok)
        self.assertIn("expected failure: AssertionError: known", detail)
        ok, detail = self.rows["test_unexpected_success"]
        self.assertFalse(ok)
        self.assertIn("unexpected success", detail)

    def test_every_test_has_a_row(self) -> None:
        """One row per test (per failing subtest), a pass the only passing
        row, and the count the gate reads says so."""
        self.assertEqual(self.rows["test_passes"], (True, "ok"))
        self.assertEqual(self.rows["test_fails"], (False, "boom"))
        self.assertEqual(self.rows["test_errors"], (False, "KeyError: 'k'"))
        # A failure with no message (a bare assert) still gets its row.
        self.assertEqual(self.rows["test_bare_assert"], (False, "AssertionError"))
        subtest = next(k for k in self.rows if k.startswith("test_subtests"))
        self.assertIn("(i=1)", subtest)
        self.assertFalse(self.rows[subtest][0])
        self.assertEqual(len(self.rows), 9)
        out = io.StringIO()
        rows = [(name, ok, detail) for name, (ok, detail) in self.rows.items()]
        with contextlib.redirect_stdout(out):
            code = results.report("harness", rows)
        self.assertEqual(code, 1)
        self.assertEqual(out.getvalue().splitlines()[-1], "harness: 1 passed, 8 failed")


if __name__ == "__main__":
    unittest.main()
