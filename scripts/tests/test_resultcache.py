# SPDX-License-Identifier: GPL-2.0
"""lib/resultcache.py: a passing result comes back only under the same
digest; a failing one is never kept; BOARD_NUMBERS_FRESH runs again."""

from __future__ import annotations

import contextlib
import io
import os
import unittest
from pathlib import Path

from lib import resultcache
from tests import fakes

ROWS = [("0001-a.patch", True, "0 accepted findings"),
        ("0002-b.patch", True, "1 accepted findings")]


class ResultCacheTest(fakes.KeptResultsCase):
    def test_same_key_gives_the_rows_and_lines_back(self) -> None:
        resultcache.keep("checkpatch", "k1", ROWS, ["checkpatch: PASS  0001-a.patch"],
                         {"sparse": "on every gcc build"}, cfg=self.cfg)
        record = resultcache.load("checkpatch", "k1", cfg=self.cfg)
        assert record is not None
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rows = resultcache.replay("checkpatch", record)
        self.assertEqual(rows, ROWS)
        self.assertEqual(record["extra"], {"sparse": "on every gcc build"})
        printed = out.getvalue().splitlines()
        self.assertIn("not run again", printed[0])
        self.assertEqual(printed[1:], ["checkpatch: PASS  0001-a.patch"])

    def test_another_key_runs_again(self) -> None:
        resultcache.keep("bisect", "k1", ROWS, [], cfg=self.cfg)
        self.assertIsNone(resultcache.load("bisect", "k2", cfg=self.cfg))

    def test_a_failure_is_not_kept_and_forgets_the_pass(self) -> None:
        resultcache.keep("bisect", "k1", ROWS, [], cfg=self.cfg)
        resultcache.keep("bisect", "k1", [ROWS[0], ("0002-b.patch", False, "")], [],
                         cfg=self.cfg)
        self.assertIsNone(resultcache.load("bisect", "k1", cfg=self.cfg))
        self.assertFalse(resultcache.path("bisect", self.cfg).exists())

    def test_no_rows_is_not_a_pass(self) -> None:
        resultcache.keep("bisect", "k1", [], [], cfg=self.cfg)
        self.assertIsNone(resultcache.load("bisect", "k1", cfg=self.cfg))

    def test_fresh_runs_again(self) -> None:
        resultcache.keep("bisect", "k1", ROWS, [], cfg=self.cfg)
        os.environ["BOARD_NUMBERS_FRESH"] = "1"
        self.assertIsNone(resultcache.load("bisect", "k1", cfg=self.cfg))

    def test_digest_parts_do_not_run_together(self) -> None:
        self.assertNotEqual(resultcache.digest(["ab", "c"]), resultcache.digest(["a", "bc"]))
        self.assertEqual(resultcache.digest(["a", b"b"]), resultcache.digest([b"a", "b"]))

    def test_files_name_a_missing_one(self) -> None:
        missing = Path(self.dir.name) / "none"
        self.assertEqual(resultcache.files([missing]), [str(missing).encode(), b"(missing)"])


if __name__ == "__main__":
    unittest.main()
