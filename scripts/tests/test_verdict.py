# SPDX-License-Identifier: GPL-2.0
"""model.verdict: the tally of a run on one kernel, and pair(), the one
verdict on a patched run and its plain-kernel negative control that e2e
and every reliability run give.

A patched run passes when it probed, broke no rule of the model and its
own checks hold; the plain run's row passes only when the model caught
the plain kernel: a plain run that only broke shows nothing, and a plain
kernel that passes means the test cannot tell."""

from __future__ import annotations

import unittest

from model.verdict import Tally, kmemleak_figures, pair
from tests.fakes import CAUGHT, probe, tally


class PairTest(unittest.TestCase):
    """pair(): the patched row and the plain control's."""

    def test_patched_clean_plain_caught(self) -> None:
        """Both rows pass; the control names where the plain kernel was
        caught."""
        rows = pair("loops", tally(), tally(violations={2: CAUGHT}), "12 binds")
        self.assertEqual(rows, [("loops patched", True, "12 binds"),
                                ("loops plain", True,
                                 f"plain kernel caught at cycle 2: {CAUGHT}")])

    def test_plain_kernel_passing_fails_the_control(self) -> None:
        """A plain kernel that passes fails its row: the test is broken;
        the patched row still passes."""
        rows = pair("loops", tally(), tally(), "12 binds")
        self.assertEqual(rows[1], ("loops plain", False,
                                   "plain kernel passes: this test is broken"))
        self.assertTrue(rows[0][1])

    def test_plain_caught_by_a_mismatch(self) -> None:
        """A plain run caught by a mismatch across probes (the async run's
        shared numbers) passes, naming it."""
        rows = pair("async-40", tally(), tally(mismatches=[
            "e1000 numbers are not 0..33 (shared: [0])"]), "x")
        self.assertEqual(rows[1][:2], ("async-40 plain", True))
        self.assertIn("shared: [0]", rows[1][2])

    def test_plain_run_that_broke_is_not_caught(self) -> None:
        """A plain run that only went wrong (a guest that stopped) has not
        shown the model catching it: the control fails, saying why."""
        rows = pair("loops", tally(), tally(notes=["guest loop exit status 1/0"]),
                           "x")
        self.assertEqual(rows[1][:2], ("loops plain", False))
        self.assertIn("broke before the model could catch it", rows[1][2])

    def test_patched_mismatch_fails(self) -> None:
        """A mismatch on the patched kernel fails it, as a violation does."""
        rows = pair("async-40", tally(mismatches=["e1000 numbers are not 0..33"]),
                           None, "x")
        self.assertEqual(rows[0], ("async-40 patched", False, "e1000 numbers are not 0..33"))

    def test_first_violation_fails_the_patched_kernel(self) -> None:
        """A violation on the patched kernel fails it, naming the first one,
        whatever the plain kernel did."""
        rows = pair("loops", tally(violations={3: "b", 2: "a"}),
                           tally(violations={1: CAUGHT}), "12 binds")
        self.assertEqual(rows[0], ("loops patched", False, "cycle 2: a"))
        self.assertTrue(rows[1][1])

    def test_no_probe_fails(self) -> None:
        """A patched run that probed nothing proved nothing."""
        rows = pair("loops", tally(probes=0), tally(violations={1: CAUGHT}), "x")
        self.assertEqual(rows[0], ("loops patched", False, "no probe ran"))

    def test_notes_fail_the_patched_kernel(self) -> None:
        """A patched run that went wrong on the way (a note) fails, with
        the notes as the detail, though no probe broke the model."""
        rows = pair("bad-params", tally(notes=["boot 1: no message /x/"]),
                    tally(violations={1: CAUGHT}), "detail")
        self.assertEqual(rows[0], ("bad-params patched", False, "boot 1: no message /x/"))

    def test_extra_check_fails_the_patched_kernel(self) -> None:
        """A run's own check (@extra_ok) failing fails the patched row."""
        rows = pair("faults-e1000", tally(), tally(violations={1: CAUGHT}), "detail",
                    extra_ok=False)
        self.assertFalse(rows[0][1])

    def test_debug_kernel_row(self) -> None:
        """On the debug kernel (kmemleak scans ran) the row is named debug,
        says what the scans found, and there is no control."""
        patched = tally()
        patched.scans, patched.leaks = 1, 0
        rows = pair("loops", patched, None, "12 binds")
        self.assertEqual(rows, [("loops debug", True,
                                 "12 binds; kmemleak: 1 scans, 0 reports")])

    def test_figures_follow_either_way(self) -> None:
        """@figures follow the detail of a passing run and what went wrong
        in a failing one; the control's row has none."""
        rows = pair("a", tally(), tally(violations={1: CAUGHT}), "3 probes",
                    figures="0.75s per cycle")
        self.assertEqual(rows, [("a patched", True, "3 probes; 0.75s per cycle"),
                                ("a plain", True, f"plain kernel caught at cycle 1: {CAUGHT}")])
        rows = pair("a", tally(violations={2: "x"}), None, "3 probes",
                    figures="0.75s per cycle")
        self.assertEqual(rows, [("a patched", False, "cycle 2: x; 0.75s per cycle")])

    def test_figures_replace_the_kmemleak_count(self) -> None:
        """A run that gives its own @figures says what kmemleak found in
        them, or not at all: the default count is not added as well."""
        patched = tally()
        patched.note_leaks([])
        rows = pair("a", patched, None, "3 probes", figures="")
        self.assertEqual(rows, [("a debug", True, "3 probes")])
        self.assertEqual(kmemleak_figures(patched), "kmemleak: 1 scans, 0 reports")
        self.assertEqual(kmemleak_figures(tally()), "")

    def test_plain_notes_named_three_at_most(self) -> None:
        """A broken plain run's control names its first three notes."""
        rows = pair("loops", tally(), tally(notes=["n1", "n2", "n3", "n4"]), "x")
        self.assertEqual(rows[1], ("loops plain", False, "plain kernel run broke before "
                                   "the model could catch it: n1; n2; n3"))


class TallyTest(unittest.TestCase):
    """What a run notes in its Tally, and its cycle time."""

    def test_kernel_trouble(self) -> None:
        """The first trouble line is a note; every line is kept whole and
        counted."""
        t = Tally()
        t.note_trouble(["[   30.1] WARNING: at x.c:1", "[   30.2] Call Trace:"])
        self.assertEqual(t.notes, ["kernel trouble: [   30.1] WARNING: at x.c:1"])
        self.assertEqual(t.trouble, ["[   30.1] WARNING: at x.c:1", "[   30.2] Call Trace:"])
        self.assertEqual(t.reports, 2)
        t.note_trouble([])
        self.assertEqual((len(t.notes), t.reports), (1, 2))

    def test_kmemleak_scans(self) -> None:
        """Each scan counts; the first three objects are notes, all of them
        kept, before the kernel's trouble as a run notes them."""
        t = Tally()
        leaks = [f"unreferenced object 0x{i:x} (size 64):" for i in range(4)]
        t.note_leaks(leaks)
        t.note_leaks([])
        t.note_trouble(["BUG: x"])
        self.assertEqual((t.scans, t.leaks), (2, 4))
        self.assertEqual(t.notes, [f"kmemleak: {line}" for line in leaks[:3]]
                         + ["kernel trouble: BUG: x"])
        self.assertEqual(t.trouble, [f"kmemleak: {line}" for line in leaks] + ["BUG: x"])

    def test_cycle_seconds(self) -> None:
        """Mean hot-add plus mean hot-remove; a failed probe is no
        hot-add; None without adds or removals."""
        t = tally(3)
        self.assertIsNone(t.cycle_seconds())
        t.removals = [0.25, 0.75]
        t.probes.append(probe(4))
        t.probes[-1].seconds, t.probes[-1].failed = 9.0, -12
        self.assertEqual(t.cycle_seconds(), 1.0)
        self.assertIsNone(tally(0).cycle_seconds())


if __name__ == "__main__":
    unittest.main()
