# SPDX-License-Identifier: GPL-2.0
"""checks/probe_counters.py: reading spatch's report, the classification,
and the verdicts; and the committed reports against the classification."""

from __future__ import annotations

import subprocess
import tempfile
import unittest
from pathlib import Path

from checks import probe_counters as pc
from lib.common import Failure

# Lines as spatch printed them for 7.3.4 (docs/probe-counters/7.3.txt's
# source), one hit of each kind: counted up only, counted down, not in a
# probe (in this order, not spatch's).
OUTPUT = """\
drivers/net/ethernet/realtek/8139too.c:951:1-10: WARNING: probe count board_idx picks option slots
drivers/net/ethernet/realtek/8139too.c:1062:41-46: board_idx's slot of media
drivers/media/usb/hdpvr/hdpvr-core.c:363:30-36: WARNING: probe count dev_nr picks option slots
drivers/media/usb/hdpvr/hdpvr-core.c:373:8-16: dev_nr's slot of video_nr
drivers/media/usb/hdpvr/hdpvr-core.c:367:14-20: dev_nr counted down
drivers/media/usb/hdpvr/hdpvr-core.c:423:13-19: dev_nr counted down
drivers/net/plip/plip.c:1397:11-22: WARNING: count parport_ptr picks option slots (not in a probe)
drivers/net/plip/plip.c:1397:3-10: parport_ptr's slot of parport
spatch: some other line
"""

TABLE = """\
# Probe counters

## Every hit

| file | counter | class | why |
|---|---|---|---|
| `drivers/net/ethernet/realtek/8139too.c` | `board_idx` | converted | set 3 |
| `drivers/media/usb/hdpvr/hdpvr-core.c` | `dev_nr` | open | media |
| `drivers/net/plip/plip.c` | `parport_ptr` | false | counts plip= boot options |

## Left in the patched trees

| file | counter | why |
|---|---|---|
| `drivers/net/ethernet/realtek/8139too.c` | `board_idx` | a path without a device |
"""


class Parse(unittest.TestCase):
    def test_hits(self) -> None:
        hits = pc.parse(OUTPUT)
        self.assertEqual([h.key for h in hits],
                         [("drivers/net/ethernet/realtek/8139too.c", "board_idx"),
                          ("drivers/media/usb/hdpvr/hdpvr-core.c", "dev_nr"),
                          ("drivers/net/plip/plip.c", "parport_ptr")])
        self.assertEqual(hits[1].line, 363)
        self.assertEqual(hits[1].text,
                         "probe count; slot of video_nr at "
                         "drivers/media/usb/hdpvr/hdpvr-core.c:373; counted down at "
                         "drivers/media/usb/hdpvr/hdpvr-core.c:367; counted down at "
                         "drivers/media/usb/hdpvr/hdpvr-core.c:423")
        self.assertTrue(hits[2].text.startswith("count (not in a probe); "))

    def test_detail_of_another_counter_is_not_taken(self) -> None:
        other = OUTPUT.replace("dev_nr's slot", "other's slot")
        self.assertNotIn("video_nr", pc.parse(other)[1].text)

    def test_report_is_sorted_and_stable(self) -> None:
        hits = pc.parse(OUTPUT)
        text = pc.report_text(list(reversed(hits)))
        self.assertEqual(text, pc.report_text(hits))
        self.assertTrue(text.startswith("drivers/media/usb/hdpvr/hdpvr-core.c:363: dev_nr, "))
        self.assertEqual(pc.parse_report(text), sorted(hits, key=pc.order))

    def test_classes(self) -> None:
        table = pc.classes(TABLE)
        self.assertEqual(table[("drivers/net/plip/plip.c", "parport_ptr")][0], "false")
        self.assertEqual(len(table), 3)

    def test_unknown_class_refused(self) -> None:
        with self.assertRaisesRegex(Failure, "is not one of"):
            pc.classes(TABLE.replace("| open |", "| later |"))

    def test_twice_refused(self) -> None:
        row = TABLE.splitlines()[6]
        with self.assertRaisesRegex(Failure, "classified twice"):
            pc.classes(TABLE.replace(row, row + "\n" + row))

    def test_left(self) -> None:
        self.assertEqual(pc.left(TABLE), {
            ("drivers/net/ethernet/realtek/8139too.c", "board_idx"): "a path without a device"})

    def test_missing_section_refused(self) -> None:
        with self.assertRaisesRegex(Failure, "no section"):
            pc.classes(TABLE.replace("## Every hit", "## Hits"))


class Verdicts(unittest.TestCase):
    def setUp(self) -> None:
        self.hits = pc.parse(OUTPUT)
        self.table = pc.classes(TABLE)
        self.series = ["drivers/net/ethernet/realtek/8139too.c"]
        self.committed = pc.report_text(self.hits)

    def rows(self, patched_hits: list[pc.Hit] | None = None,
             committed: str | None = None,
             table: dict[tuple[str, str], tuple[str, str]] | None = None,
             series_files: list[str] | None = None,
             kept: dict[tuple[str, str], str] | None = None) -> dict[str, tuple[bool, str]]:
        rows = pc.verdicts(
            self.hits, self.hits[1:] if patched_hits is None else patched_hits,
            self.committed if committed is None else committed,
            self.table if table is None else table,
            self.series if series_files is None else series_files, kept)
        return {name: (ok, why) for name, ok, why in rows}

    def test_all_pass(self) -> None:
        rows = self.rows()
        self.assertTrue(all(ok for ok, _ in rows.values()), rows)
        self.assertIn("1/1 files", rows["recall"][1])

    def test_known_miss_listed_passes_unlisted_fails(self) -> None:
        """A converted file the rule does not find fails the recall row
        unless docs/probe-counters.md lists it, with its reason."""
        series = self.series + ["sound/usb/caiaq/device.c"]
        rows = {n: (ok, why) for n, ok, why in pc.verdicts(
            self.hits, self.hits[1:], self.committed, self.table, series)}
        self.assertFalse(rows["recall"][0])
        self.assertIn("missed: sound/usb/caiaq/device.c", rows["recall"][1])
        text = (f"\n{pc.MISSED}\n\n| file | why |\n|---|---|\n"
                "| `sound/usb/caiaq/device.c` | no counter |\n")
        rows = {n: (ok, why) for n, ok, why in pc.verdicts(
            self.hits, self.hits[1:], self.committed, self.table, series,
            known_misses=pc.misses(text))}
        self.assertTrue(rows["recall"][0], rows["recall"])
        self.assertIn("1 missed, listed in", rows["recall"][1])

    def test_stale_report(self) -> None:
        self.assertFalse(self.rows(committed="")["base report"][0])

    def test_quick_scan_compares_hits_not_readers(self) -> None:
        fewer = self.committed.replace("slot of video_nr", "slot of x")
        self.assertFalse(self.rows(committed=fewer)["base report"][0])
        rows = pc.verdicts(self.hits, [], fewer, self.table, self.series, exact=False)
        self.assertTrue(rows[0][1])
        moved = self.committed.replace("hdpvr-core.c:363:", "hdpvr-core.c:364:")
        rows = pc.verdicts(self.hits, [], moved, self.table, self.series, exact=False)
        self.assertFalse(rows[0][1])

    def test_unclassified_hit(self) -> None:
        table = dict(self.table)
        del table[("drivers/net/plip/plip.c", "parport_ptr")]
        ok, why = self.rows(table=table)["classified"]
        self.assertFalse(ok)
        self.assertIn("plip.c parport_ptr", why)

    def test_missed_series_file(self) -> None:
        ok, why = self.rows(series_files=self.series + ["drivers/net/x.c"])["recall"]
        self.assertFalse(ok)
        self.assertIn("1/2", why)

    def test_no_series_is_no_recall(self) -> None:
        self.assertFalse(self.rows(series_files=[])["recall"][0])

    def test_found_through_a_reader(self) -> None:
        # e1000_param.c reads a slot with what e1000_main.c counts.
        hit = pc.Hit("drivers/net/e1000/e1000_main.c", 1, "cards_found",
                     "probe count; slot of Speed at "
                     "drivers/net/e1000/e1000_param.c:5")
        self.assertTrue(pc.found("drivers/net/e1000/e1000_param.c", [hit]))
        self.assertFalse(pc.found("drivers/net/e1000/e1000_hw.c", [hit]))

    def test_left_after_conversion(self) -> None:
        ok, why = self.rows(patched_hits=self.hits)["patched tree"]
        self.assertFalse(ok)
        self.assertIn("8139too.c board_idx", why)

    def test_fixed_left_after_the_series(self) -> None:
        """A hit the series fixes in place must be gone from the patched
        tree too."""
        table = dict(self.table)
        table[self.hits[1].key] = ("fixed", "")
        ok, why = self.rows(table=table)["patched tree"]
        self.assertFalse(ok)
        self.assertIn(f"{self.hits[1].file} {self.hits[1].counter}", why)

    def test_left_on_purpose(self) -> None:
        ok, why = self.rows(patched_hits=self.hits, kept=pc.left(TABLE))["patched tree"]
        self.assertTrue(ok, why)

    def test_converted_not_in_series(self) -> None:
        table = dict(self.table)
        table[("drivers/media/usb/hdpvr/hdpvr-core.c", "dev_nr")] = ("converted", "")
        self.assertFalse(self.rows(table=table)["classes"][0])

    def test_readers(self) -> None:
        self.assertEqual(self.hits[1].readers, {"drivers/media/usb/hdpvr/hdpvr-core.c"})

    def test_precision(self) -> None:
        self.assertEqual(pc.precision(self.hits, self.table), "2/3")


class Committed(unittest.TestCase):
    """The reports in docs/probe-counters/ and docs/probe-counters.md."""

    def test_every_hit_classified_and_every_row_hit(self) -> None:
        table = pc.classes(pc.CLASSES.read_text())
        keys: set[tuple[str, str]] = set()
        for report in sorted(pc.DOCS.glob("*.txt")):
            hits = pc.parse_report(report.read_text())
            self.assertTrue(hits, report)
            keys |= {h.key for h in hits}
            self.assertFalse({h.key for h in hits} - set(table), report.name)
        self.assertFalse(set(table) - keys, "rows no report has")


class TouchedTest(unittest.TestCase):
    """The quick scan's extra files: what base..series changes, C files
    and headers only, in a git repository made for the test."""

    def test_changed_c_files_and_headers(self) -> None:
        with tempfile.TemporaryDirectory() as tmp:
            repo = Path(tmp)

            def git(*args: str) -> None:
                subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t",
                                *args], cwd=repo, check=True, capture_output=True)

            git("init", "-q", "-b", "base")
            for name in ("a.c", "b.c", "README"):
                (repo / name).write_text("x\n")
            git("add", ".")
            git("commit", "-q", "-m", "base")
            git("checkout", "-q", "-b", "series")
            (repo / "b.c").write_text("y\n")
            (repo / "c.h").write_text("z\n")
            (repo / "README").write_text("y\n")
            git("add", ".")
            git("commit", "-q", "-m", "series")
            self.assertEqual(pc.touched(repo), {"b.c", "c.h"})

