# SPDX-License-Identifier: GPL-2.0
"""e2e.runner.judge(): the patched verdict and the plain-kernel control,
through model.verdict.pair(), with e2e's figures."""

from __future__ import annotations

import unittest

from e2e.runner import judge
from model.check import Probe
from model.verdict import Tally


def probe(cycle: int, violation: str = "") -> Probe:
    """An e1000 probe of @cycle, with @violation if any."""
    return Probe(cycle=cycle, driver="e1000", device="nic0", pci="0000:00:04.0",
                 expected_number=0, number=0, expected={"tx": 256, "rx": 256},
                 observed={"tx": 256, "rx": 256}, warned=False, seconds=0.5,
                 violation=violation)


def result(violations: dict[int, str] | None = None,
           trouble: list[str] | None = None, cycles: int = 3) -> Tally:
    """A run of scenario a: @cycles probes, some with violations, and the
    kernel's @trouble as e2e.runner.run() notes it."""
    violations = violations or {}
    tally = Tally(probes=[probe(c, violations.get(c, "")) for c in range(1, cycles + 1)],
                  removals=[0.25] * cycles)
    tally.note_trouble(trouble or [])
    return tally


PLAIN_CAUGHT = {2: "values {'tx': 520, 'rx': 1544}, model {'tx': 256, 'rx': 256}"}


class JudgeTest(unittest.TestCase):
    """The rows judge() gives for a scenario."""

    def test_both_pass(self) -> None:
        """Patched without violation, plain with one: two passing rows, the
        control naming where the plain kernel was caught."""
        rows = judge("a", result(), result(PLAIN_CAUGHT), raw=None)
        self.assertEqual([(name, ok) for name, ok, _ in rows],
                         [("a patched", True), ("a plain", True)])
        self.assertTrue(rows[0][2].startswith("3 probes, 0 violations; 0.75s per cycle"))
        self.assertEqual(rows[1][2], "plain kernel caught at cycle 2: "
                         + PLAIN_CAUGHT[2])

    def test_plain_passing_breaks_the_test(self) -> None:
        """A plain kernel that passes means the test cannot tell: the
        control row fails, the patched one still passes."""
        rows = judge("a", result(), result(), raw=None)
        self.assertEqual(rows[1], ("a plain", False,
                                   "plain kernel passes: this test is broken"))
        self.assertTrue(rows[0][1])

    def test_patched_violation_fails(self) -> None:
        """A violation on the patched kernel fails it, naming the first."""
        rows = judge("a", result({3: "board number 1, model 0", 2: "x"}),
                     result(PLAIN_CAUGHT), raw=None)
        self.assertEqual(rows[0][:2], ("a patched", False))
        self.assertTrue(rows[0][2].startswith("cycle 2: x"))

    def test_patched_kernel_trouble_fails(self) -> None:
        """Kernel trouble fails the patched run even with no violation."""
        trouble = ["[   30.123456] WARNING: CPU: 0 PID: 1 at drivers/base/devres.c:42"]
        rows = judge("a", result(trouble=trouble),
                     result(PLAIN_CAUGHT), raw=None)
        self.assertEqual(rows[0][:2], ("a patched", False))
        self.assertIn("kernel trouble", rows[0][2])
        self.assertIn("devres.c:42", rows[0][2])
        self.assertTrue(rows[1][1])

    def test_no_probe_fails(self) -> None:
        """A run that probed nothing proved nothing."""
        rows = judge("a", result(cycles=0), result(PLAIN_CAUGHT), raw=None)
        self.assertEqual(rows[0], ("a patched", False, "no probe ran"))

    def test_raw_ratio(self) -> None:
        """With the raw loop measured, the detail gives the ratio."""
        rows = judge("a", result(), result(PLAIN_CAUGHT), raw=0.5)
        self.assertIn("0.75s per cycle, raw 0.50s, ratio 1.50", rows[0][2])

    def test_debug_has_no_control(self) -> None:
        """The debug kernel's run (its kmemleak scan ran) has one row and
        no plain control."""
        patched = result()
        patched.note_leaks([])
        rows = judge("a", patched, None, raw=None)
        self.assertEqual(len(rows), 1)
        self.assertEqual(rows[0][:2], ("a debug", True))
        self.assertTrue(rows[0][2].endswith("; kmemleak: 0 reports"))

    def test_debug_leak_fails(self) -> None:
        """A kmemleak report fails the debug run, naming the object, and
        the count still follows."""
        patched = result()
        patched.note_leaks(["unreferenced object 0xffff888003a1c000 (size 64):"])
        rows = judge("a", patched, None, raw=None)
        self.assertEqual(rows[0][:2], ("a debug", False))
        self.assertTrue(rows[0][2].startswith("kmemleak: unreferenced object 0xffff888003a1c000"))
        self.assertTrue(rows[0][2].endswith("; 0.75s per cycle; kmemleak: 1 reports"))

    def test_plain_run_that_broke_is_not_caught(self) -> None:
        """A plain run with kernel trouble and no violation has not shown
        the model catching it: the control fails, saying why."""
        rows = judge("a", result(), result(trouble=["[   31.000000] BUG: x"]), raw=None)
        self.assertEqual(rows[1], ("a plain", False,
                                   "plain kernel run broke before the model could catch "
                                   "it: kernel trouble: [   31.000000] BUG: x"))

    def test_patched_alone(self) -> None:
        """make mutants runs the patched (mutated) kernel alone: one row,
        named for it, red on a violation."""
        rows = judge("a", result({2: "board number 1, model 0"}), None,
                     raw=None)
        self.assertEqual([r[:2] for r in rows], [("a patched", False)])


if __name__ == "__main__":
    unittest.main()
