# SPDX-License-Identifier: GPL-2.0
"""lib/walkcache.py: bisect's kept steps. A step's key depends on the
walk's set-up and on every tree up to it; only the steps before the first
failure are kept; a walk resumes after the steps it shares, and
BOARD_NUMBERS_FRESH walks everything."""

from __future__ import annotations

import os
import unittest
from collections import Counter

from lib import walkcache
from tests import fakes

TREES = ["base-tree", "tree-1", "tree-2", "tree-3"]
OLD = "drivers/net/ethernet/dec/tulip/tulip_core.c: warning: unused"


def steps(keys: list[str], failing: int = 0) -> list[walkcache.Step]:
    """A walk's steps under @keys: the base, then prefixes that pass but
    the @failing-th (1-based; 0 for none), each having seen one more
    warning than the step before."""
    out = [walkcache.Step(keys[0], {"gcc": Counter({OLD: 1})}, None,
                          ["bisect: sparse cannot run on this base"])]
    for index, key in enumerate(keys[1:], 1):
        seen = Counter(out[-1].seen["gcc"])
        seen[f"w{index}"] += 1
        out.append(walkcache.Step(key, {"gcc": seen},
                                  (f"{index:04d}.patch", index != failing, "0 new"),
                                  [f"bisect: PASS  {index:04d}.patch"]))
    return out


class ChainTest(unittest.TestCase):
    def test_a_changed_patch_changes_its_key_and_every_later_one(self) -> None:
        before = walkcache.chain("setup", TREES)
        after = walkcache.chain("setup", TREES[:2] + ["tree-2 changed", "tree-3"])
        self.assertEqual(before[:2], after[:2])
        self.assertNotEqual(before[2], after[2])
        # The last prefix's tree is the same, but not what came before it.
        self.assertNotEqual(before[3], after[3])

    def test_another_setup_shares_no_key(self) -> None:
        before = walkcache.chain("setup", TREES)
        after = walkcache.chain("setup with clang", TREES)
        self.assertEqual([a == b for a, b in zip(before, after)], [False] * 4)

    def test_shared_counts_leading_steps(self) -> None:
        keys = walkcache.chain("setup", TREES)
        kept = steps(keys)
        self.assertEqual(walkcache.shared(kept, keys), 4)
        self.assertEqual(walkcache.shared(kept[:2], keys), 2)
        self.assertEqual(walkcache.shared(kept, walkcache.chain("setup", ["other"] + TREES[1:])), 0)
        changed = walkcache.chain("setup", TREES[:3] + ["tree-3 changed"])
        self.assertEqual(walkcache.shared(kept, changed), 3)


class KeepTest(fakes.KeptResultsCase):
    def setUp(self) -> None:
        super().setUp()
        self.keys = walkcache.chain("setup", TREES)

    def test_round_trip(self) -> None:
        walk = steps(self.keys)
        walkcache.keep(self.cfg, walk, {"sparse": "on every gcc build"})
        kept, extra, finished = walkcache.load(self.cfg)
        self.assertEqual(kept, walk)
        self.assertEqual(extra, {"sparse": "on every gcc build"})
        self.assertTrue(finished)
        self.assertEqual(kept[3].seen["gcc"], Counter({OLD: 1, "w1": 1, "w2": 1, "w3": 1}))

    def test_only_the_steps_before_a_failure_are_kept(self) -> None:
        """A step after a failure was judged against the failure's
        warnings, which a passing walk would not have seen."""
        walkcache.keep(self.cfg, steps(self.keys, failing=2))
        kept, _, _ = walkcache.load(self.cfg)
        self.assertEqual([s.key for s in kept], self.keys[:2])

    def test_a_failing_first_prefix_keeps_the_base(self) -> None:
        walkcache.keep(self.cfg, steps(self.keys, failing=1))
        kept, _, _ = walkcache.load(self.cfg)
        self.assertEqual([s.key for s in kept], self.keys[:1])

    def test_nothing_walked_forgets_what_was_kept(self) -> None:
        walkcache.keep(self.cfg, steps(self.keys))
        walkcache.keep(self.cfg, [])
        self.assertEqual(walkcache.load(self.cfg)[0], [])

    def test_fresh_walks_everything(self) -> None:
        walkcache.keep(self.cfg, steps(self.keys))
        os.environ["BOARD_NUMBERS_FRESH"] = "1"
        self.assertEqual(walkcache.load(self.cfg)[0], [])

    def test_unreadable_record_is_none(self) -> None:
        walkcache.path(self.cfg).parent.mkdir(parents=True)
        walkcache.path(self.cfg).write_text('{"steps": [{"key": 1}]}')
        self.assertEqual(walkcache.load(self.cfg), ([], {}, ""))


if __name__ == "__main__":
    unittest.main()
