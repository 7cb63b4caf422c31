# SPDX-License-Identifier: GPL-2.0
"""A run on one kernel (Tally) and the verdicts on a pair of runs (pair()).

Every guest run, e2e's scenarios and the reliability runs alike, keeps
its probes and how it went in a Tally, and is judged by pair(): the
patched kernel's row, and the plain kernel's, the negative control. Only
the model catches the plain kernel (a probe's violation, or the model
broken across probes): a plain run that only broke shows nothing, and a
plain kernel that passes means the test cannot tell the two apart.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from lib.results import Row
from model.check import Probe

# A verdict: (name, passed, detail), the row lib.results keeps.
Verdict = Row


@dataclass
class Tally:
    """The probes of one run on one kernel, and how it went."""
    probes: list[Probe] = field(default_factory=list)
    # The model broken across probes (two boards sharing a number): what
    # catches a kernel, like a probe's violation.
    mismatches: list[str] = field(default_factory=list)
    # How the run went wrong (a guest that stopped, a read-back missing,
    # kernel trouble): never what catches a kernel.
    notes: list[str] = field(default_factory=list)
    reports: int = 0  # kernel trouble lines (BUG, WARNING, KASAN, ...)
    scans: int = 0  # kmemleak scans run (debug kernel)
    leaks: int = 0  # objects they reported
    # Every report of trouble, whole: the kernel's lines and kmemleak's
    # ("kmemleak: ..."), for e2e's per-probe records; notes name the first.
    trouble: list[str] = field(default_factory=list)
    # Seconds per hot-remove, where a run times them (e2e): with the
    # probes' seconds, the time of a hot-plug cycle.
    removals: list[float] = field(default_factory=list)

    @property
    def violations(self) -> list[Probe]:
        return [p for p in self.probes if p.violation]

    def first(self) -> str:
        """The first thing that breaks the model: a probe's violation,
        else a mismatch across probes; "" when nothing does."""
        bad = self.violations
        if bad:
            return f"cycle {bad[0].cycle}: {bad[0].violation}"
        return self.mismatches[0] if self.mismatches else ""

    def cycle_seconds(self) -> float | None:
        """Mean hot-add plus mean hot-remove: a cycle, whatever the order;
        None without both. A probe that failed kept no number and is not
        a hot-add that counts."""
        adds = [p.seconds for p in self.probes if not p.failed]
        if not adds or not self.removals:
            return None
        return statistics.mean(adds) + statistics.mean(self.removals)

    def note_leaks(self, leaks: list[str]) -> None:
        """One kmemleak scan that reported @leaks (its objects' lines)."""
        self.notes += [f"kmemleak: {line}" for line in leaks[:3]]
        self.trouble += [f"kmemleak: {line}" for line in leaks]
        self.scans += 1
        self.leaks += len(leaks)

    def note_trouble(self, trouble: list[str]) -> None:
        """The kernel's reports of trouble (guest.machine.Guest.trouble)."""
        self.notes += [f"kernel trouble: {t}" for t in trouble[:1]]
        self.trouble += trouble
        self.reports += len(trouble)


def kmemleak_figures(tally: Tally) -> str:
    """What @tally's kmemleak scans found, when any ran."""
    return f"kmemleak: {tally.scans} scans, {tally.leaks} reports" if tally.scans else ""


def pair(name: str, patched: Tally, plain: Tally | None, detail: str,
         extra_ok: bool = True, figures: str | None = None) -> list[Verdict]:
    """The patched run's verdict and, with @plain, the negative control's.

    The patched run passes when it probed, nothing broke the model,
    nothing went wrong on the way (no note: kernel trouble, a guest that
    stopped, a read-back missing) and @extra_ok (the run's own checks)
    holds; its detail is then @detail,
    else what went wrong. @figures, what the run measured, follow either
    way; by default what kmemleak's scans found (kmemleak_figures()). The
    row is "NAME debug" when kmemleak scans ran, "NAME patched" otherwise.
    """
    ok = (bool(patched.probes) and not patched.first() and not patched.notes
          and extra_ok)
    why = detail if ok else (patched.first() or "; ".join(patched.notes)
                             or "no probe ran")
    figures = kmemleak_figures(patched) if figures is None else figures
    if figures:
        why += f"; {figures}"
    rows = [(f"{name} {'patched' if not patched.scans else 'debug'}", ok, why)]
    if plain is not None:
        # Only the model catches the plain kernel: a plain run that broke
        # (a guest that stopped, a read-back missing) shows nothing.
        caught = plain.first()
        if caught:
            why = f"plain kernel caught at {caught}"
        elif plain.notes:
            why = ("plain kernel run broke before the model could catch it: "
                   + "; ".join(plain.notes[:3]))
        else:
            why = "plain kernel passes: this test is broken"
        rows.append((f"{name} plain", bool(caught), why))
    return rows
