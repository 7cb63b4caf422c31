# SPDX-License-Identifier: GPL-2.0
"""Small stand-ins shared by the tests: a git tree with a branch series
(what build/BASE/linux is to lib.results and series.tree), stage records
as lib.results.save() writes them, a side_by_side() that runs its work
in the calling thread, the tally of a run (model.verdict.Tally), and a
test case whose build directory is a fresh temporary one, for the kept
results of lib.resultcache and lib.walkcache."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock
from typing import Any, Callable, TypeVar

from lib.common import config
from model.check import Probe
from model.model import DRIVERS
from model.verdict import Tally

K = TypeVar("K")
T = TypeVar("T")

# No user or system git configuration: signing, hooks or a default
# branch name of the machine's own must not change what the tests see.
GIT_ENV = {"GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "Harness Test", "GIT_AUTHOR_EMAIL": "test@localhost",
           "GIT_COMMITTER_NAME": "Harness Test",
           "GIT_COMMITTER_EMAIL": "test@localhost",
           "GIT_AUTHOR_DATE": "2000-01-01T00:00:00Z",
           "GIT_COMMITTER_DATE": "2000-01-01T00:00:00Z"}


def git(cwd: Path, *args: str) -> str:
    """Run git in @cwd without the user's configuration; its output."""
    proc = subprocess.run(["git", *args], cwd=cwd, env=dict(os.environ, **GIT_ENV),
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout.strip()


def series_tree(path: Path, text: str = "one\n") -> tuple[str, str]:
    """A kernel tree stand-in at @path: branch base, and branch series one
    commit on (a file holding @text). Its series commit and that
    commit's tree, as lib.results.series_commit() reads them."""
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "base")
    (path / "Makefile").write_text("VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\n")
    git(path, "add", "Makefile")
    git(path, "commit", "-q", "-m", "base")
    git(path, "checkout", "-q", "-b", "series")
    (path / "series.txt").write_text(text)
    git(path, "add", "series.txt")
    git(path, "commit", "-q", "-m", "the series")
    return git(path, "rev-parse", "series"), git(path, "rev-parse", "series^{tree}")


def record(directory: Path, stage: str, series: tuple[str, str],
           rows: list[tuple[str, bool, str]], tier: str = "full",
           **extra: Any) -> Path:
    """@stage's record in @directory/results/, of the series commit and
    tree @series, as lib.results.save() writes it."""
    path = directory / "results" / f"{stage}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({
        "stage": stage, "series": series[0], "tree": series[1],
        "finished": "2000-01-01 00:00:00 UTC", "tier": tier,
        "passed": sum(1 for _, ok, _ in rows if ok),
        "failed": sum(1 for _, ok, _ in rows if not ok),
        "rows": [{"name": n, "ok": ok, "detail": d} for n, ok, d in rows],
        **extra}, indent=1))
    return path


def inline(work: Callable[[K], T], items: dict[str, K]) -> dict[str, T]:
    """guest.session.side_by_side(), one item after the other, here."""
    return {key: work(item) for key, item in items.items()}


# A violation that catches the plain kernel.
CAUGHT = "board number 2, model 0"


def probe(cycle: int, violation: str = "") -> Probe:
    """An e1000 probe of @cycle, with @violation if any."""
    return Probe(cycle=cycle, driver="e1000", device="nic", pci="0000:00:03.0",
                 expected_number=0, number=0, expected={"tx": 256, "rx": 256},
                 observed={"tx": 256, "rx": 256}, warned=False, seconds=0.5,
                 violation=violation)


def tally(probes: int = 3, violations: dict[int, str] | None = None,
          notes: list[str] | None = None,
          mismatches: list[str] | None = None) -> Tally:
    """A run of @probes probes, @violations by cycle, with @notes (how the
    run went wrong) and @mismatches (the model broken across probes)."""
    violations = violations or {}
    return Tally(probes=[probe(c, violations.get(c, "")) for c in range(1, probes + 1)],
                 notes=list(notes or []), mismatches=list(mismatches or []))


class Boards:
    """One driver's board numbers in a kernel stand-in: the patched kernel
    or the plain one (a counter that only grows, each number with its
    slot's values). In the patched one, as drivers/base/board_numbers.c
    numbers them, the first board (PCI address) to take a slot number owns
    it for good; a board takes the number it owns if free, or if it owns
    none the lowest free one nobody owns, or else the lowest free one; on
    a number another board owns it takes only the values given alike for
    every slot, and names each other parameter given that it ignores. What
    it prints follows the formats of the drivers and of board_numbers.c;
    values come from model.model's DRIVERS."""

    def __init__(self, driver: str, patched: bool) -> None:
        self.spec = DRIVERS[driver]
        self.patched = patched
        self.bound: dict[str, int] = {}  # PCI address (or a leak) -> number
        self.owners: dict[int, str] = {}  # slot number -> PCI address
        self.count = 0
        self.ifindex = 1

    def number(self, pci: str) -> int:
        """The number a probe of @pci takes, and owns if nobody did."""
        if not self.patched:
            number, self.count = self.count, self.count + 1
            return number
        used = set(self.bound.values())
        own = [n for n, owner in sorted(self.owners.items())
               if owner == pci and n not in used]
        unowned = [n for n in range(self.spec.slots)
                   if n not in used and n not in self.owners]
        if own:
            number = own[0]
        elif unowned and pci not in self.owners.values():
            number = unowned[0]
        else:
            number = min(set(range(len(used) + 1)) - used)
        if number < self.spec.slots:
            self.owners.setdefault(number, pci)
        return number

    def alike(self, number: int) -> set[str]:
        """The parameters whose values apply on @number whoever owns it."""
        given: dict[str, list[int]] = {}
        for slot in range(self.spec.slots):
            for key, value in self.spec.params(slot).items():
                given.setdefault(key, []).append(value)
        return {key for key, values in given.items()
                if len(values) > max(1, number) and len(set(values)) == 1}

    def bind(self, pci: str) -> list[str]:
        """A probe of @pci that works: the kernel's lines about it."""
        spec = self.spec
        number = self.bound[pci] = self.number(pci)
        stamp = f"[{20 + len(self.bound):5d}.000000]"
        lines = [f"{stamp} pci {pci}: [8086:100e] type 00 class 0x020000"]
        if self.patched:
            lines.append(f"{stamp} {spec.name} {pci}: board number {number}")
        if self.patched and number < spec.slots and self.owners[number] != pci:
            alike = self.alike(number)
            lines += [f"{stamp} {spec.name} {pci}: ignoring {key} for board {number}: "
                      "given for the board that had the number first"
                      for key, value in spec.params(number).items()
                      if value != spec.unset and key not in alike]
        if number >= spec.slots and spec.warning:
            lines.append(f"{stamp} {spec.name} {pci}: "
                         + spec.warning.format(number=number)
                         + " using defaults for all values")
        return lines

    def fail(self, pci: str) -> None:
        """A probe of @pci that took a number and failed: the number is
        free again, and, where the driver counts failed probes, @pci owns
        it if it was the first to take it. (The plain kernel's counter
        only counts probes that worked.)"""
        if self.patched and self.spec.failed_probe_counts:
            self.number(pci)

    def take(self, pci: str, key: str) -> None:
        """A probe of @pci that failed and kept its number, under @key: a
        leak."""
        self.bound[key] = self.number(pci)

    def unbind(self, pci: str) -> None:
        """A bound board goes away (unbind, removal)."""
        del self.bound[pci]

    def values(self, pci: str) -> dict[str, int]:
        number = self.bound[pci]
        if number >= self.spec.slots:
            return dict(self.spec.defaults)
        if not self.patched or self.owners[number] == pci:
            return self.spec.reported(number)
        values = dict(self.spec.defaults)
        for key in self.alike(number):
            for shown in self.spec.shows[key]:
                values[shown] = self.spec.reported(number)[shown]
        return values

    def show(self, pci: str) -> str:
        """The agent's "NICWATCH add" line for @pci (nicwatch.c's printf)."""
        values = {"tx": 256, "rx": 256, "rx_usecs": -1, **self.values(pci)}
        self.ifindex += 1
        return (f"NICWATCH add ifindex={self.ifindex} name=eth{self.ifindex - 2} "
                f"driver={self.spec.name} bus={pci} tx={values['tx']} "
                f"rx={values['rx']} rx_usecs={values['rx_usecs']} autoneg=1 "
                "advertising=0x2f speed=-1 duplex=255 up=0")


class KeptResultsCase(unittest.TestCase):
    """A case with a build directory of its own (self.cfg, on 7.3) and
    BOARD_NUMBERS_FRESH unset, whatever the run's environment says."""

    def setUp(self) -> None:
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)
        self.cfg = config("7.3", {"BOARD_NUMBERS_BUILD": self.dir.name})
        fresh = mock.patch.dict(os.environ)
        fresh.start()
        self.addCleanup(fresh.stop)
        os.environ.pop("BOARD_NUMBERS_FRESH", None)
