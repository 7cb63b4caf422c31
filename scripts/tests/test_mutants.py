# SPDX-License-Identifier: GPL-2.0
"""make mutants' own logic: applying a mutation, the batches, the verdict
read from a kunit.py report, and the run's last line and exit status."""

from __future__ import annotations

import contextlib
import io
import json
import tempfile
import unittest
from pathlib import Path
from unittest import mock

from checks import callsites
from lib import results
from lib.common import Failure, config
from mutants import mutate as mutants_run
from mutants.catalog import (
    BATCHES, CatalogError, Mutant, apply, callsite_mutants, check_batches
)
from mutants.mutate import red_suites


def mutant(name: str = "m", path: str = "drivers/x.c", old: str = "a < b",
           catcher: str = "kunit:x") -> Mutant:
    return Mutant(name, "a rule", path, old, "a <= b", catcher)


class ApplyTest(unittest.TestCase):
    def setUp(self) -> None:
        self.tmp = tempfile.TemporaryDirectory()
        self.tree = Path(self.tmp.name)
        (self.tree / "drivers").mkdir()

    def tearDown(self) -> None:
        self.tmp.cleanup()

    def write(self, text: str) -> Path:
        path = self.tree / "drivers" / "x.c"
        path.write_text(text)
        return path

    def test_replaces_the_one_occurrence(self) -> None:
        path = self.write("if (a < b)\n\treturn;\n")
        apply(mutant(), self.tree)
        self.assertEqual(path.read_text(), "if (a <= b)\n\treturn;\n")

    def test_code_gone_is_an_error_and_the_file_is_left_alone(self) -> None:
        path = self.write("if (a > b)\n")
        with self.assertRaisesRegex(CatalogError, "occurs 0 times"):
            apply(mutant(), self.tree)
        self.assertEqual(path.read_text(), "if (a > b)\n")

    def test_ambiguous_code_is_an_error(self) -> None:
        self.write("a < b; a < b;\n")
        with self.assertRaisesRegex(CatalogError, "occurs 2 times"):
            apply(mutant(), self.tree)


class BatchesTest(unittest.TestCase):
    def test_catalog_is_consistent(self) -> None:
        check_batches(BATCHES)
        names = [m.name for b in BATCHES for m in b]
        # The shared code's rules, and the drivers QEMU emulates in guests.
        for needed in ("devm_ida-never-freed", "board-other-board-gets-values",
                       "board-own-number-not-taken", "board-retaken-gets-defaults",
                       "board-alike-ignored", "board-never-told",
                       "board-number-put-kept", "board-slot-message-dropped",
                       "e1000-counter", "e1000e-counter",
                       "board-retaken-gets-defaults-e2e", "board-alike-ignored-e2e"):
            self.assertIn(needed, names)

    def test_one_catcher_per_batch(self) -> None:
        with self.assertRaisesRegex(CatalogError, "share a catcher"):
            check_batches([[mutant("a", "x.c"), mutant("b", "y.c")]])

    def test_one_file_per_batch(self) -> None:
        with self.assertRaisesRegex(CatalogError, "share a path"):
            check_batches([[mutant("a", catcher="kunit:x"),
                            mutant("b", catcher="kunit:y")]])

    def test_kunit_not_mixed_with_guests(self) -> None:
        with self.assertRaisesRegex(CatalogError, "mixes"):
            check_batches([[mutant("a", "x.c"), mutant("b", "y.c", catcher="e2e:a")]])

    def test_names_once(self) -> None:
        with self.assertRaisesRegex(CatalogError, "twice"):
            check_batches([[mutant("a")], [mutant("a")]])


DRIVER = """\
DEFINE_STATIC_BOARD_NUMBERS(foo_boards, MAX_UNITS);

static int foo_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
\tboard = devm_board_number_get(&pdev->dev, &foo_boards);
\topt = board_slot_value(&pdev->dev, &foo_boards, board,
\t\t\t       options, 0);
\tfdx = board_slot_value(&pdev->dev, &foo_boards, board,
\t\t\t       full_duplex, 0);
}

static struct pci_driver foo_driver = {
\t.probe = foo_probe,
};
"""

# A board numbered by hand, given back by hand (tuner-simple's shape)
BY_HAND = """\
DEFINE_STATIC_BOARD_NUMBERS(bar_tuners, 64);

static int bar_attach(struct bar_priv *priv, const char *name)
{
\tpriv->nr = board_number_get(&bar_tuners, name);
\trf = board_param_applies(dev, &bar_tuners, priv->nr, rf_input, num);
}

static void bar_release(struct bar_priv *priv)
{
\tboard_number_put(&bar_tuners, priv->nr);
}
"""


class CallsiteMutantsTest(unittest.TestCase):
    """The call-site mutants found in a driver's code."""

    def mutants(self, text: str) -> list[Mutant]:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "drivers").mkdir()
            (Path(tmp) / "drivers" / "foo.c").write_text(text)
            found = callsite_mutants(Path(tmp), {"drivers": ["drivers/foo.c"]})
            for m in found:  # each applies: its code occurs exactly once
                apply(m, Path(tmp))
                (Path(tmp) / "drivers" / "foo.c").write_text(text)
        return found

    def test_lookup_of_each_driver(self) -> None:
        lookup, = self.mutants(DRIVER)
        self.assertEqual(lookup.name, "foo_boards-lookup-wrong-number")
        self.assertEqual(lookup.catcher, "callsites:drivers")
        self.assertIn("board + 1,\n\t\t\t       options", lookup.new)

    def test_put_of_a_number_taken_by_hand(self) -> None:
        lookup, put = self.mutants(BY_HAND)
        self.assertEqual(lookup.name, "bar_tuners-lookup-wrong-number")
        self.assertIn("priv->nr + 1, rf_input", lookup.new)
        self.assertEqual((put.name, put.old, put.new),
                         ("bar_tuners-put-wrong-number",
                          "board_number_put(&bar_tuners, priv->nr);",
                          "board_number_put(&bar_tuners, 0);"))

    def test_identical_lookups_are_told_apart_by_the_next_argument(self) -> None:
        text = DRIVER.replace("full_duplex, 0", "options, 0")
        self.assertEqual([m.name for m in self.mutants(text)], [])


class RedSuitesTest(unittest.TestCase):
    def test_suites_with_a_failing_case(self) -> None:
        report = {"name": "KUnit Test Group", "test_cases": [], "sub_groups": [
            {"name": "devm_ida", "test_cases": [
                {"name": "devm_ida_lowest_free", "status": "PASS"},
                {"name": "devm_ida_release_then_reuse", "status": "FAIL"}]},
            {"name": "tulip_options", "test_cases": [
                {"name": "tulip_options_own_slot", "status": "PASS"}]},
            {"name": "vortex_options", "test_cases": [
                {"name": "vortex_options_reset", "status": "ERROR"}]},
        ]}
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "kunit-results.json"
            path.write_text(json.dumps(report))
            self.assertEqual(red_suites(path), {"devm_ida", "vortex_options"})

    def test_no_report_is_an_error_not_a_catch(self) -> None:
        with self.assertRaisesRegex(Failure, "did not build or boot"):
            red_suites(Path("/nonexistent/kunit-results.json"))


class MainTest(unittest.TestCase):
    """The verdict line and the exit status, with the tree, the stages and
    the results file stood in for."""

    def run_main(self, caught: dict[str, bool]) -> tuple[int, str, list[list[results.Row]]]:
        """main()'s exit status, output and the rows it saved, each
        mutant caught or not as @caught says."""
        batch = [mutant(name, f"drivers/{name}.c", catcher=f"kunit:{name}")
                 for name in caught]
        saved: list[list[results.Row]] = []
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(mutants_run, "BATCHES", [batch]), \
                mock.patch.object(mutants_run, "fresh_copy"), \
                mock.patch.object(callsites, "driver_dirs", return_value={}), \
                mock.patch.object(mutants_run, "apply"), \
                mock.patch.object(mutants_run, "judge", side_effect=lambda _, b: [
                    (m, caught[m.name], "red" if caught[m.name] else "green")
                    for m in b]), \
                mock.patch.object(results, "save",
                                  side_effect=lambda cfg, stage, rows, **extra:
                                  saved.append(rows)), \
                mock.patch("sys.argv", ["mutants.mutate"]):
            cfg = config("7.3", {"BOARD_NUMBERS_BUILD": tmp})
            (cfg.tree / ".git").mkdir(parents=True)
            for m in batch:  # the files the mutants change are in this base
                (cfg.tree / m.path).parent.mkdir(parents=True, exist_ok=True)
                (cfg.tree / m.path).write_text("code\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = mutants_run.main(cfg)
        return code, out.getvalue(), saved

    def test_all_caught(self) -> None:
        code, out, saved = self.run_main({"a": True, "b": True})
        self.assertEqual(code, 0)
        self.assertTrue(out.rstrip().endswith("mutants: 2 caught, 0 survived"))
        self.assertEqual([ok for _, ok, _ in saved[0]], [True, True])

    def test_absent_driver_left_out(self) -> None:
        """A mutant of a driver the base does not have is left out and
        said so; the others still run."""
        batch = [mutant("a", "drivers/a.c", catcher="kunit:a"),
                 mutant("gone", "drivers/gone.c", catcher="kunit:gone")]
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(mutants_run, "BATCHES", [batch]), \
                mock.patch.object(mutants_run, "fresh_copy"), \
                mock.patch.object(callsites, "driver_dirs", return_value={}), \
                mock.patch.object(mutants_run, "apply"), \
                mock.patch.object(mutants_run, "judge",
                                  side_effect=lambda _, b: [(m, True, "red") for m in b]), \
                mock.patch.object(results, "save"), \
                mock.patch("sys.argv", ["mutants.mutate"]):
            cfg = config("7.3", {"BOARD_NUMBERS_BUILD": tmp})
            (cfg.tree / ".git").mkdir(parents=True)
            (cfg.tree / "drivers").mkdir()
            (cfg.tree / "drivers" / "a.c").write_text("code\n")
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = mutants_run.main(cfg)
        self.assertEqual(code, 0)
        self.assertIn("gone left out: drivers/gone.c is not in this base", out.getvalue())
        self.assertTrue(out.getvalue().rstrip().endswith("mutants: 1 caught, 0 survived"))

    def test_a_survivor_fails_the_run(self) -> None:
        code, out, saved = self.run_main({"a": True, "b": False})
        self.assertEqual(code, 1)
        self.assertIn("SURVIVED b", out)
        self.assertTrue(out.rstrip().endswith("mutants: 1 caught, 1 survived"))


if __name__ == "__main__":
    unittest.main()
