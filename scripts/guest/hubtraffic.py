# SPDX-License-Identifier: GPL-2.0
"""The guest's traffic generator: build scripts/guest/agent/hubtraffic.c, read it.

hubtraffic sends broadcast frames out of every running e1000 interface
and prints, per interface, "HUBTRAFFIC ifindex=N ... sent=S recv=R" a
few times a second (see hubtraffic.c). Counters only grow, so a report
whose recv is above an earlier one for the same ifindex proves frames
arrived in between. Counters() keeps the latest report of each
interface, for the totals and for the waits of reliability/surprise.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from guest import agent
from lib.common import Config

SOURCE = Path(__file__).parent / "agent" / "hubtraffic.c"
# Searched anywhere in a line: the kernel's console output can land in
# front of a user-space line on the serial port.
LINE = re.compile(r"HUBTRAFFIC ifindex=(\d+) name=(\S+) bus=(\S+) state=(\w+) "
                  r"sent=(\d+) recv=(\d+) errors=(\d+)")
# What the generator prints when it cannot run, or meets an errno it did
# not expect on a send (counted, not fatal).
NOTE = re.compile(r"HUBTRAFFIC (error|note): .*")


def build(cfg: Config) -> Path:
    """The generator, built like the agent (agent.build_static())."""
    return agent.build_static(cfg, SOURCE)


@dataclass(frozen=True)
class Report:
    ifindex: int
    name: str
    bus: str
    state: str  # up, down (not running), gone (its last line)
    sent: int
    recv: int
    errors: int


def parse(line: str) -> Report | None:
    m = LINE.search(line)
    if not m:
        return None
    return Report(int(m.group(1)), m.group(2), m.group(3), m.group(4),
                  int(m.group(5)), int(m.group(6)), int(m.group(7)))


class Counters:
    """The latest report of every interface the generator has counted."""

    def __init__(self) -> None:
        self.latest: dict[int, Report] = {}
        self.notes: list[str] = []
        # Per interface that went away: frames sent and sends failed
        # between its last report and its "gone" line, i.e. while it
        # was being removed.
        self.last_words: list[tuple[int, int]] = []

    def feed(self, lines: list[str]) -> list[Report]:
        """Take console lines; return the reports among them."""
        reports = []
        for line in lines:
            report = parse(line)
            if report:
                before = self.latest.get(report.ifindex)
                if report.state == "gone" and before and before.state != "gone":
                    self.last_words.append((report.sent - before.sent,
                                            report.errors - before.errors))
                self.latest[report.ifindex] = report
                reports.append(report)
            elif (m := NOTE.search(line)):
                self.notes.append(m.group(0))
        return reports

    def totals(self) -> tuple[int, int, int]:
        """Frames sent, received and failed sends, over every interface."""
        reports = self.latest.values()
        return (sum(r.sent for r in reports), sum(r.recv for r in reports),
                sum(r.errors for r in reports))
