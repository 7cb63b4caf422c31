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
# source), one per kind of hit.
OUTPUT = """\
drivers/net/ethernet/realtek/8139too.c:956:2-11: WARNING: board_idx, counted up in rtl8139_init_one from probe callback rtl8139_init_one, selects the slot of full_duplex, media (module parameter arrays, read in rtl8139_init_one); number boards with devm_board_number_get()
drivers/media/usb/hdpvr/hdpvr-core.c:363:30-36: WARNING: dev_nr, counted up in hdpvr_probe from probe callback hdpvr_probe, selects the slot of video_nr (module parameter arrays, read in hdpvr_probe); counted down in hdpvr_disconnect, hdpvr_probe; number boards with devm_board_number_get()
drivers/net/plip/plip.c:1339:2-13: WARNING: parport_ptr, counted up in plip_setup (no probe callback of this file calls it), selects the slot of parport (module parameter arrays, read in plip_setup); number boards with devm_board_number_get()
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
        self.assertIn("counted down in hdpvr_disconnect", hits[1].text)

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
        self.series = {"drivers/net/ethernet/realtek/8139too.c": {"rtl8139_init_one"}}
        self.committed = pc.report_text(self.hits)

    def rows(self, patched_hits: list[pc.Hit] | None = None,
             committed: str | None = None,
             table: dict[tuple[str, str], tuple[str, str]] | None = None,
             series_files: dict[str, set[str]] | None = None,
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
        series = dict(self.series, **{"sound/usb/caiaq/device.c": {"create_card"}})
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
        fewer = self.committed.replace("read in hdpvr_probe", "read in x")
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
        ok, why = self.rows(series_files=dict(self.series, **{"drivers/net/x.c": set()}))["recall"]
        self.assertFalse(ok)
        self.assertIn("1/2", why)

    def test_no_series_is_no_recall(self) -> None:
        self.assertFalse(self.rows(series_files={})["recall"][0])

    def test_found_through_a_reader(self) -> None:
        # e1000_param.c defines the function that reads what
        # e1000_main.c counts; drivers/media is another directory.
        series = {"drivers/media/usb/hdpvr/param.c": {"hdpvr_probe"}}
        self.assertIn("1/1", self.rows(series_files=series)["recall"][1])
        series = {"drivers/media/usb/hdpvr/param.c": {"other"}}
        self.assertFalse(self.rows(series_files=series)["recall"][0])

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
        self.assertEqual(self.hits[1].readers, {"hdpvr_probe"})

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

