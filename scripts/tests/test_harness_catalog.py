# SPDX-License-Identifier: GPL-2.0
"""make harness-mutants' catalog (mutants/harness_catalog.py) still
applies: each mutant's code occurs exactly once in its file, so that a
change to the harness that moves it is seen here, in seconds, rather
than as an error an hour into make check-full.

In a copy that make harness-mutants has mutated, one mutant's code is
gone by design; there the catalog is checked against the unmutated
scripts it names (HARNESS_MUTANTS_SOURCE), so that this test does not
catch every mutant for the wrong reason."""

from __future__ import annotations

import os
import unittest
from pathlib import Path

from mutants.harness_catalog import MUTANTS

SCRIPTS = Path(os.environ.get("HARNESS_MUTANTS_SOURCE")
               or Path(__file__).resolve().parent.parent)


class CatalogTest(unittest.TestCase):
    def test_each_applies_once(self) -> None:
        for mutant in MUTANTS:
            with self.subTest(mutant.name):
                text = (SCRIPTS / mutant.path).read_text()
                self.assertEqual(text.count(mutant.old), 1, mutant.path)
                self.assertNotEqual(mutant.old, mutant.new)

    def test_names_unique_and_enough(self) -> None:
        names = [m.name for m in MUTANTS]
        self.assertEqual(len(names), len(set(names)))
        self.assertGreaterEqual(len(names), 30)


if __name__ == "__main__":
    unittest.main()
