# SPDX-License-Identifier: GPL-2.0
"""make figures (gate.figures.main) refuses what it must not publish: the
record of a gate run that failed, and stage records of another version
of the series or of a failing run; a refused run leaves docs/figures.md
as it was. The build root, its series tree (a small git repository
with a branch series) and the records are made here."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path
from typing import Any
from unittest import mock

from gate import figures
from lib.common import Failure, config
from tests import fakes

E2E = [("a patched", True, "20 probes, 0 violations"),
       ("a plain", True, "plain kernel caught at cycle 2")]
KUNIT = [("devm_ida.alloc", True, "ok"), ("e1000_param.slot", True, "ok")]


class MainTest(unittest.TestCase):
    def setUp(self) -> None:
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.root = Path(tmp.name)
        self.out = self.root / "docs" / "figures.md"
        self.out.parent.mkdir()
        self.record = self.root / "gate" / "gate.json"
        # The build root is the test's, and so is docs/figures.md.
        self.cfg = config("7.3", {"BOARD_NUMBERS_ROOT": str(self.root)})
        for name, value in (("REPO", self.root), ("OUT", self.out)):
            patcher = mock.patch.object(figures, name, value)
            patcher.start()
            self.addCleanup(patcher.stop)
        self.series = fakes.series_tree(self.root / "7.3" / "linux")
        # The cold run's section, of this series: make figures keeps it.
        self.old = (figures.HEADER + "\n## make check, cold\n\n- finished long ago\n"
                    f"- series trees 7.3 {self.series[1][:12]}\n\nkept\n")
        self.out.write_text(self.old)
        fakes.record(self.root / "7.3", "kunit", self.series, KUNIT, tier="check",
                     suites=["devm_ida", "e1000_param"])
        fakes.record(self.root / "7.3", "e2e", self.series, E2E, tier="check")

    def gate(self, failed: int = 0) -> None:
        """The gate's record of a make check on 7.3 with a warm ccache;
        with @failed, the guest kernels' build failed (a stage whose cases
        figures does not read)."""
        stages: list[dict[str, Any]] = [
            {"name": "guest-kernels", "base": "7.3", "release": "7.3.4",
             "seconds": 60, "passed": 1 - min(failed, 1), "failed": failed,
             "result": "guest-kernels", "skip": ""},
            {"name": "kunit", "base": "7.3", "release": "7.3.4", "seconds": 90,
             "passed": 2, "failed": 0, "result": "kunit", "skip": ""},
            {"name": "e2e", "base": "7.3", "release": "7.3.4", "seconds": 300,
             "passed": 2, "failed": 0, "result": "e2e", "skip": ""}]
        self.record.parent.mkdir(exist_ok=True)
        self.record.write_text(json.dumps({
            "stage": "gate", "gate_tier": "check", "bases": ["7.3"],
            "finished": "2000-01-02 03:04:05 UTC", "seconds": 700,
            "ccache": {"hits": 9000, "misses": 12}, "setup_seconds": 5,
            "passed": 5 - failed, "failed": failed,
            "series": {"7.3": {"series": self.series[0], "tree": self.series[1]}},
            "repository": "0123456789ab", "stages": stages}))

    def main(self) -> int:
        with contextlib.redirect_stdout(io.StringIO()):
            return figures.main(self.cfg)

    def test_passing_run_is_written(self) -> None:
        """The control: a passing run of this series gets its section, and
        the other sections of this series stay."""
        self.gate()
        self.assertEqual(self.main(), 0)
        text = self.out.read_text()
        self.assertIn("## make check, warm ccache", text)
        self.assertIn(f"- series trees 7.3 {self.series[1][:12]}", text)
        self.assertIn("| a plain | pass | plain kernel caught at cycle 2 |", text)
        self.assertIn("2 of 2 cases pass in 2 suites", text)
        self.assertIn("\nkept\n", text)
        self.assertLess(text.index("## make check, warm"), text.index("## make check, cold"))

    def test_failed_run_refused(self) -> None:
        """A gate record that counts a failure is refused, even when every
        stage record figures reads passed; docs/figures.md is untouched."""
        self.gate(failed=1)
        with self.assertRaisesRegex(Failure, "1 failed; figures come from a passing run"):
            self.main()
        self.assertEqual(self.out.read_text(), self.old)

    def test_stage_record_of_another_series_refused(self) -> None:
        """A stage record of another version of the series (another commit
        and tree) is refused; docs/figures.md is untouched."""
        self.gate()
        fakes.record(self.root / "7.3", "e2e", ("c" * 40, "d" * 40), E2E, tier="check")
        with self.assertRaisesRegex(Failure, "not the current one"):
            self.main()
        self.assertEqual(self.out.read_text(), self.old)

    def test_gate_record_of_another_series_refused(self) -> None:
        """A gate record of another version of the series is refused even
        when its stage records are of this one; docs/figures.md is untouched."""
        self.gate()
        record = json.loads(self.record.read_text())
        record["series"]["7.3"] = {"series": "c" * 40, "tree": "d" * 40}
        self.record.write_text(json.dumps(record))
        with self.assertRaisesRegex(Failure, "another version of the series on 7.3"):
            self.main()
        self.assertEqual(self.out.read_text(), self.old)

    def test_failing_stage_record_refused(self) -> None:
        """A stage record with a failing case is refused even when the gate
        record says nothing failed; docs/figures.md is untouched."""
        self.gate()
        fakes.record(self.root / "7.3", "e2e", self.series,
                     [("a patched", False, "cycle 2: board number 1, model 0")],
                     tier="check")
        with self.assertRaisesRegex(Failure, "1 failed"):
            self.main()
        self.assertEqual(self.out.read_text(), self.old)

    def test_no_gate_record_refused(self) -> None:
        """Without the gate's record there is nothing to write from."""
        with self.assertRaisesRegex(Failure, "run the gate first"):
            self.main()
        self.assertEqual(self.out.read_text(), self.old)


if __name__ == "__main__":
    unittest.main()
