# SPDX-License-Identifier: GPL-2.0
"""How a stage counts its cases: a StageVerdict's passed and failed, the
exit status lib.results.count() gives, and checks.kunit's rows from a
kunit.py report, its exit status and the kernel's log."""

from __future__ import annotations

import contextlib
import io
import unittest

from checks import kunit
from gate import ktap
from lib import results

ROWS: list[results.Row] = [("a", True, "ok"), ("b", False, "expected 1"), ("c", True, "ok")]


class StageVerdictTest(unittest.TestCase):
    def test_passed_and_failed(self) -> None:
        verdict = ktap.StageVerdict("kunit@7.3", list(ROWS))
        self.assertEqual((verdict.passed, verdict.failed), (2, 1))


class CountTest(unittest.TestCase):
    def count(self, rows: list[results.Row]) -> tuple[int, str]:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = results.count("stage", rows)
        return code, out.getvalue()

    def test_one_failure_fails(self) -> None:
        self.assertEqual(self.count(ROWS), (1, "stage: 2 passed, 1 failed\n"))

    def test_all_passed(self) -> None:
        self.assertEqual(self.count([("a", True, "ok")]), (0, "stage: 1 passed, 0 failed\n"))


class KunitVerdictTest(unittest.TestCase):
    def test_case_without_status_is_an_error(self) -> None:
        report = {"name": "KUnit Test Group", "sub_groups": [
            {"name": "board_numbers", "test_cases": [{"name": "first", "status": "PASS"},
                                                     {"name": "cut"}]}]}
        self.assertEqual(list(kunit.cases(report)),
                         [("board_numbers.first", "PASS"), ("board_numbers.cut", "ERROR")])

    def test_cases_as_rows(self) -> None:
        rows = kunit.verdict([("s.a", "PASS"), ("s.b", "SKIP"), ("s.c", "FAIL")], 1, [])
        self.assertEqual([ok for _, ok, _ in rows], [True, True, False])

    def test_exit_status_no_case_shows(self) -> None:
        """kunit.py failing while every case passed is a failure of its own."""
        rows = kunit.verdict([("s.a", "PASS")], 1, [])
        self.assertEqual(rows[-1], ("kunit.py", False, "exit 1"))
        self.assertEqual(kunit.verdict([("s.a", "PASS")], 0, []), [("s.a", True, "PASS")])

    def test_kernel_trouble_fails(self) -> None:
        rows = kunit.verdict([("s.a", "PASS")], 0, ["WARNING: CPU: 0 PID: 1 at x"])
        self.assertEqual(rows[-1], ("kernel log", False, "WARNING: CPU: 0 PID: 1 at x"))


if __name__ == "__main__":
    unittest.main()
