# SPDX-License-Identifier: GPL-2.0
"""make figures (gate.figures): one section per kind of run, the last
run's section replacing its own, sections of another series dropped."""

from __future__ import annotations

import unittest

from gate import figures

TREE = "6.12 aaaa1111bbbb, 7.3 cccc2222dddd"


def section(name: str, tree: str = TREE, body: str = "x") -> str:
    return (f"## {name}\n\n- finished today\n"
            f"- series trees {tree}\n\n{body}\n")


class MergeTest(unittest.TestCase):
    def test_replaces_own_section_keeps_others(self) -> None:
        """A new warm make check replaces the old one; the cold one stays."""
        old = figures.HEADER + "\n" + section("make check, cold", body="cold") \
            + "\n" + section("make check, warm ccache", body="old")
        new = figures.merge(old, section("make check, warm ccache", body="new"),
                            "make check, warm ccache", TREE)
        self.assertIn("new", new)
        self.assertNotIn("\nold\n", new)
        self.assertIn("\ncold\n", new)
        self.assertTrue(new.startswith(figures.HEADER))
        # In ORDER: warm make check before cold make check.
        self.assertLess(new.index("## make check, warm"), new.index("## make check, cold"))

    def test_drops_sections_of_another_series(self) -> None:
        """A figure of another version of the series does not survive."""
        old = figures.HEADER + "\n" + section("make check-full, warm ccache",
                                              tree="6.12 aaaa1111bbbb, 7.3 eeee5555ffff", body="stale")
        new = figures.merge(old, section("make check, warm ccache"),
                            "make check, warm ccache", TREE)
        self.assertNotIn("stale", new)
        self.assertNotIn("make check-full", new)

    def test_title_tells_warm_from_cold(self) -> None:
        """ccache misses say whether the run compiled the kernels."""
        cases = [("check", 9000, 40, "make check, warm ccache"),
                 ("full", 0, 9000, "make check-full, cold"),
                 # Recorded: the cold run at 23bf3d4, and a warm one whose
                 # guest kernels' configuration had changed (b1219f1).
                 ("check", 1518, 2971, "make check, cold"),
                 ("check", 1343, 1019, "make check, warm ccache")]
        for tier, hits, misses, title in cases:
            self.assertEqual(figures.title({"gate_tier": tier, "ccache": {
                "hits": hits, "misses": misses}}), title)

    def test_title_cold_only_from_an_empty_cache(self) -> None:
        """Where the record says how many objects ccache held as the run
        began, that alone decides: c2d1f00's run built one base's guest
        kernels for the first time on a warm machine and missed more than
        it hit, yet was warm."""
        cases = [(2585, 3086, 11004, "make check, warm ccache"),
                 (2319, 3375, 0, "make check, cold"),
                 (9000, 40, 0, "make check, cold")]
        for hits, misses, files, title in cases:
            self.assertEqual(figures.title({"gate_tier": "check", "ccache": {
                "hits": hits, "misses": misses, "files_before": files}}), title)


if __name__ == "__main__":
    unittest.main()
