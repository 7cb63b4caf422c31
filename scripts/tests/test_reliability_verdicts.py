# SPDX-License-Identifier: GPL-2.0
"""How the reliability runs judge the patched kernel and the plain one,
the negative control, through model.verdict.pair() (tests/test_verdict.py):
surprise.verdicts(), and each run's rows from its kernels' tallies (the
guests replaced by tallies made here).

A patched run passes when it probed, broke no rule of the model and
noted nothing; the plain run's row passes only when the plain kernel was
caught: a plain kernel that passes means the test cannot tell."""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Callable
from unittest import mock

from guest.session import Kernel
from lib.common import config
from model.verdict import Tally
from reliability import async_probe, faults, loops, params, surprise
from tests import fakes
from tests.fakes import CAUGHT, tally

def kernels(variant: str | None = None) -> dict[str, Kernel]:
    flavours = ("patched",) if variant else ("patched", "plain")
    return {f: Kernel(config("7.3", {}), f, Path(f"{f}.bzImage"), Path(f"{f}.cpio"), variant)
            for f in flavours}


class SurpriseVerdictsTest(unittest.TestCase):
    """surprise.verdicts(): both rows through pair(), the harness's errors
    as each run's notes, so that a broken plain run is told from a caught
    one."""

    def outcome(self, kernel: str, cycles: int, violations: dict[int, str] | None = None,
                errors: list[str] | None = None) -> surprise.Outcome:
        out = surprise.Outcome(kernel, tally(cycles + 2, violations), cycles=cycles,
                               seconds=[1.5] * cycles, removed={"hubA": cycles},
                               frames=(900, 880, 3), errors=list(errors or []),
                               wall=60.0)
        return out

    def test_patched_passes_plain_caught(self) -> None:
        """All cycles on the patched kernel, a violation on the plain one:
        both rows pass, the plain one naming where it was caught."""
        rows = surprise.verdicts(self.outcome("patched", 10),
                                 self.outcome("plain", 1, {3: CAUGHT}), 10)
        self.assertEqual([(n, ok) for n, ok, _ in rows],
                         [("surprise patched", True), ("surprise plain", True)])
        self.assertTrue(rows[0][2].startswith("10 cycles (hubA 10x), 12 probes; "
                                              "frames sent 900, received 880"))
        self.assertTrue(rows[1][2].startswith(f"plain kernel caught at cycle 3: {CAUGHT}"))

    def test_plain_passing_fails(self) -> None:
        """A plain kernel that ran every cycle clean fails its row."""
        rows = surprise.verdicts(self.outcome("patched", 10),
                                 self.outcome("plain", 10), 10)
        self.assertEqual(rows[1], ("surprise plain", False,
                                   "plain kernel passes: this test is broken"))

    def test_plain_broken_is_not_caught(self) -> None:
        """A plain run that broke (no frames, a QMP error) before any
        violation did not catch the plain kernel: its row fails."""
        rows = surprise.verdicts(self.outcome("patched", 10),
                                 self.outcome("plain", 0, errors=["boot: QMP timeout"]),
                                 10)
        self.assertEqual(rows[1], ("surprise plain", False, "plain kernel run broke "
                                   "before the model could catch it: boot: QMP timeout"))

    def test_patched_short_run_fails(self) -> None:
        """A patched run that stopped early (the guest's trouble ended it)
        fails, saying how far it got."""
        rows = surprise.verdicts(self.outcome("patched", 4), None, 10)
        self.assertEqual(rows, [("surprise patched", False, "only 4 of 10 cycles ran")])

    def test_patched_errors_fail(self) -> None:
        """A harness error on the patched run (the generator gone) fails
        it, with the error as the detail."""
        rows = surprise.verdicts(self.outcome("patched", 10, errors=[
            "hubtraffic exited during the run"]), None, 10)
        self.assertEqual(rows, [("surprise patched", False,
                                 "hubtraffic exited during the run")])

    def test_patched_violation_fails(self) -> None:
        """A violation on the patched kernel fails it, naming the first."""
        rows = surprise.verdicts(self.outcome("patched", 10, {5: CAUGHT}), None, 10)
        self.assertEqual(rows[0][:2], ("surprise patched", False))
        self.assertEqual(rows[0][2], f"cycle 5: {CAUGHT}")

    def test_figures(self) -> None:
        """The detail: cycles, probes, frames, what the removals met."""
        out = self.outcome("patched", 2)
        out.last_words = [(4, 0), (7, 2)]
        self.assertEqual(out.figures(),
                         "2 cycles (hubA 2x), 4 probes; frames sent 900, received 880, "
                         "3 sends failed; at removal 4-7 frames sent in the last 250 "
                         "ms, sends failing in 1 of 2 removals; 1.50s per cycle, 60s wall")


class RunRowsTest(unittest.TestCase):
    """Each run's rows from what its kernels gave (side_by_side() run
    here, the guests replaced by tallies)."""

    def test_async_rows(self) -> None:
        """The async run: pair() of its tallies; a note on the patched
        kernel (a driver's numbers not 0..n-1) fails it."""
        ran = {"patched": (tally(40), 30.0),
               "plain": (tally(40, mismatches=["shared"]), 31.0)}
        with mock.patch.object(async_probe, "side_by_side", lambda work, items: ran):
            rows = async_probe.run(kernels())
        self.assertEqual([(n, ok) for n, ok, _ in rows],
                         [("async-40 patched", True), ("async-40 plain", True)])
        self.assertIn("40 NICs probed asynchronously", rows[0][2])
        ran = {"patched": (tally(40, notes=["e1000: 39 NICs reported, 34 plugged"]),
                           30.0), "plain": (tally(40, mismatches=["shared"]), 31.0)}
        with mock.patch.object(async_probe, "side_by_side", lambda work, items: ran):
            rows = async_probe.run(kernels())
        self.assertEqual(rows[0], ("async-40 patched", False,
                                   "e1000: 39 NICs reported, 34 plugged"))

    def test_params_rows(self) -> None:
        """The params run: a note (a message missing, a modprobe not
        refused) fails the patched kernel."""
        ran = {"patched": tally(14, notes=["modprobe 34 values: modprobe was not "
                                           "refused"]),
               "plain": tally(14, violations={2: CAUGHT})}
        with mock.patch.object(params, "side_by_side", lambda work, items: ran):
            rows = params.run(kernels())
        self.assertEqual(rows[0], ("bad-params patched", False,
                                   "modprobe 34 values: modprobe was not refused"))
        self.assertTrue(rows[1][1])

    def test_loops_lengths_and_rows(self) -> None:
        """The loops run: the patched kernel runs every cycle, the plain
        one a short run; the debug kernel a fifth of them, alone."""
        calls: list[tuple[str, int, int]] = []

        def run_one(kernel: Kernel, binds: int, rescans: int) -> tuple[Tally,
                                                                       dict[str, float]]:
            calls.append((kernel.flavour, binds, rescans))
            if kernel.flavour == "plain":
                return tally(4, violations={1: CAUGHT}), {}
            return tally(1204), {"bind": 100.0, "rescan": 50.0}

        with mock.patch.object(loops, "run_one", run_one), \
                mock.patch.object(loops, "side_by_side", fakes.inline):
            rows = loops.run(kernels())
            self.assertEqual(calls, [("patched", 1000, 200), ("plain", 20, 10)])
            self.assertEqual([(n, ok) for n, ok, _ in rows],
                             [("loops patched", True), ("loops plain", True)])
            self.assertTrue(rows[0][2].startswith("1000 unbind/bind cycles in 100s, "
                                                  "200 remove/rescan cycles in 50s"))
            calls.clear()
            loops.run(kernels(), binds=100, rescans=20)
            self.assertEqual(calls, [("patched", 100, 20), ("plain", 20, 10)])
            calls.clear()
            rows = loops.run(kernels("debug"))
            self.assertEqual(calls, [("patched", 200, 40)])
            self.assertEqual(len(rows), 1)

    def test_faults_rows(self) -> None:
        """The faults run: per driver, pair() of the two kernels' rounds; a
        patched run whose bind never got through untouched fails."""
        def one_run(points: faults.Points,
                    notes: list[str]) -> Callable[[faults.Driver], None]:
            def run(self: faults.Driver) -> None:
                self.points = points
                self.tally = tally(5, notes=notes)
                if self.kernel.flavour == "plain":
                    self.tally = tally(2, violations={2: CAUGHT})
                self.boots = 1
            return run

        done = faults.Points(hit=[1, 2, 3], failed=[1, 2, 3], last=4)
        done.sites.update({"e1000_probe": 2, "kernfs_fop_write_iter": 1})
        with mock.patch.object(faults.Driver, "run", one_run(done, [])), \
                mock.patch.object(faults, "side_by_side", fakes.inline):
            rows = faults.run(kernels(), drivers=("e1000",))
        self.assertEqual([(n, ok) for n, ok, _ in rows],
                         [("faults-e1000 patched", True), ("faults-e1000 plain", True)])
        self.assertTrue(rows[0][2].startswith(
            "3 failure points hit (N=1..3), 3 failed the bind, 2 call sites "
            "(e1000_probe x2, kernfs_fop_write_iter x1); 5 binds checked, 1 boots"))
        # Driver.run() notes a bind that still hit a fault at max_n.
        unfinished = faults.Points(hit=[1, 2], failed=[1, 2], last=0)
        note = "e1000: bind still hit a fault at N=2"
        with mock.patch.object(faults.Driver, "run", one_run(unfinished, [note])), \
                mock.patch.object(faults, "side_by_side", fakes.inline):
            rows = faults.run(kernels(), drivers=("e1000",))
        self.assertEqual(rows[0], ("faults-e1000 patched", False, note))
        # And the untouched bind is what passes, notes or not.
        with mock.patch.object(faults.Driver, "run", one_run(unfinished, [])), \
                mock.patch.object(faults, "side_by_side", fakes.inline):
            rows = faults.run(kernels(), drivers=("e1000",))
        self.assertEqual(rows[0][:2], ("faults-e1000 patched", False))


if __name__ == "__main__":
    unittest.main()
