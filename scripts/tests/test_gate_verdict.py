# SPDX-License-Identifier: GPL-2.0
"""gate.gate.Gate.verdict(): a stage's cases come from the record it saved
in this run; a stage that exits non-zero with no failing case, or saves
no record, gets a failing case that says so, so that the gate cannot
count a broken stage as passed. Records are written here, in a build
root of the test's own."""

from __future__ import annotations

import os
import tempfile
import unittest
from pathlib import Path
from gate import gate as gate_run
from gate import ktap
from lib.common import config
from tests import fakes

STAGES = {stage.name: stage for stage in gate_run.STAGES}
SERIES = ("a" * 40, "b" * 40)
PASSING = [("a patched", True, "20 probes"), ("a plain", True, "caught")]


class VerdictTest(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        self.gate = gate_run.Gate(config("7.3", {"BOARD_NUMBERS_ROOT": tmp.name}),
                                  "check", ["7.3"])

    def save(self, name: str, rows: list[tuple[str, bool, str]], base: str = "7.3",
             fresh: bool = True) -> Path:
        """A record of stage @name on @base, written during the gate run
        (@fresh) or an hour before it started."""
        path = fakes.record(self.root / base, name, SERIES, rows)
        # Set, not left to the clock: a file written right after the gate
        # started may carry a time stamp a few milliseconds older.
        when = self.gate.started + (1 if fresh else -3600)
        os.utime(path, (when, when))
        return path

    def verdict(self, stage: str, code: int, base: str = "7.3") -> ktap.StageVerdict:
        job = gate_run.Job(STAGES[stage] if stage != "harness" else gate_run.HARNESS, base)
        return self.gate.verdict(job, code, self.root / (base or "gate") / "logs")

    def test_clean_stage_counts_its_cases(self) -> None:
        """Exit 0 and a fresh record: the record's cases, nothing added."""
        verdict = self.verdict("e2e", 0)
        self.assertEqual(verdict.failed, 1)  # control: no record yet
        self.save("e2e", PASSING)
        verdict = self.verdict("e2e", 0)
        self.assertEqual(verdict.rows, PASSING)
        self.assertEqual((verdict.passed, verdict.failed), (2, 0))
        self.assertEqual(verdict.name, "e2e@7.3")

    def test_nonzero_exit_without_failing_case_fails(self) -> None:
        """A stage that exits non-zero while its record says every case
        passed gets a failing case naming the exit status and its log."""
        self.save("e2e", PASSING)
        verdict = self.verdict("e2e", 2)
        self.assertEqual(verdict.rows[:2], PASSING)
        self.assertEqual(verdict.failed, 1)
        name, ok, detail = verdict.rows[2]
        self.assertEqual((name, ok), ("e2e exit status", False))
        self.assertIn("exit 2 without a failing case", detail)
        self.assertIn(str(self.root / "7.3" / "logs" / "e2e.log"), detail)

    def test_nonzero_exit_with_failing_case_adds_nothing(self) -> None:
        """A stage whose record already fails gets no extra case: the
        failure is counted once."""
        rows = [("a patched", False, "cycle 3: board number 1, model 0")] + PASSING[1:]
        self.save("e2e", rows)
        verdict = self.verdict("e2e", 1)
        self.assertEqual(verdict.rows, rows)
        self.assertEqual(verdict.failed, 1)

    def test_no_record_fails(self) -> None:
        """A stage that exits 0 but saved no record fails, naming where
        the record should have been."""
        verdict = self.verdict("reliability", 0)
        self.assertEqual(len(verdict.rows), 1)
        name, ok, detail = verdict.rows[0]
        self.assertEqual((name, ok), ("reliability results", False))
        self.assertIn(str(self.root / "7.3" / "results" / "reliability.json"), detail)

    def test_broke_before_saving_fails_once(self) -> None:
        """A stage that broke (non-zero) before saving anything gets one
        failing case, the exit status."""
        verdict = self.verdict("kunit", 1)
        self.assertEqual([(n, ok) for n, ok, _ in verdict.rows],
                         [("kunit exit status", False)])

    def test_record_of_an_earlier_run_is_not_counted(self) -> None:
        """A record older than this gate run is another run's: not
        counted, and the stage fails as one that saved nothing."""
        self.save("e2e", PASSING, fresh=False)
        verdict = self.verdict("e2e", 0)
        self.assertEqual([(n, ok) for n, ok, _ in verdict.rows],
                         [("e2e results", False)])

    def test_record_under_its_result_name(self) -> None:
        """A stage with a result name of its own (soak-debug) is read from
        that record, not from one named after the stage."""
        self.save("soak-debug", [("wrong record", False, "")])
        self.save("e2e-debug-soak", [("soak debug", True, "1000 cycles")])
        verdict = self.verdict("soak-debug", 0)
        self.assertEqual(verdict.rows, [("soak debug", True, "1000 cycles")])

    def test_guest_kernels_are_one_build_case(self) -> None:
        """The guest kernels save no record: one case, the build, from the
        exit status alone."""
        self.assertEqual(self.verdict(gate_run.GUESTS, 0).rows, [("build", True, "built")])
        rows = self.verdict(gate_run.GUESTS, 2).rows
        self.assertEqual([(n, ok) for n, ok, _ in rows], [("build", False)])
        self.assertIn("exit 2", rows[0][2])

    def test_harness_record_of_the_first_base(self) -> None:
        """The harness runs on no base and saves its record with the first
        base's."""
        self.save("harness", [("test_x.T.test_y", True, "ok")], base="7.3")
        verdict = self.verdict("harness", 0, base="")
        self.assertEqual(verdict.rows, [("test_x.T.test_y", True, "ok")])
        self.assertEqual(verdict.name, "harness")


if __name__ == "__main__":
    unittest.main()
