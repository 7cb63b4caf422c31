# SPDX-License-Identifier: GPL-2.0
"""ALSA's rule for per-card options (model/cards.py) and the ES1370 run
(e2e/sound.py): what the patched kernel must do, that the plain kernel's
cards are named as violations, and the console lines the run waits for,
from recorded guest consoles (test_data/sound-*.log)."""

from __future__ import annotations

import re
import unittest
from pathlib import Path

from e2e.sound import LIST, OPTIONS, PROBED, churn, judge, replug, scenarios
from model.cards import Card, CardModel, Options, parse_cards, violation
from model.check import Probe
from model.verdict import Tally

DATA = Path(__file__).parent / "test_data"
PCI = "0000:00:03.0"


def card(number: int, id_: str = "AudioPCI", pci: str = PCI) -> Card:
    return Card(number, id_, pci)


class ModelTest(unittest.TestCase):
    def test_lowest_free_index_and_options_follow_it(self) -> None:
        model = CardModel(OPTIONS)
        first, second = model.add("a"), model.add("b")
        self.assertEqual((first.dev, first.number, first.id), (0, 5, "First"))
        self.assertEqual((second.dev, second.number, second.id), (1, 6, "Second"))
        model.remove("a")
        again = model.add("a")
        self.assertEqual((again.dev, again.number, again.id), (0, 5, "First"))

    def test_enable_off_is_passed_over_for_good(self) -> None:
        model = CardModel(OPTIONS)
        model.add("a")
        model.add("b")
        off = model.add("c")
        self.assertEqual((off.dev, off.number), (2, None))
        self.assertIn("enable is off", off.why)
        # The third card, re-plugged, takes index 3: defaults, card 0.
        model.remove("c")
        later = model.add("c")
        self.assertEqual((later.dev, later.number, later.id), (3, 0, None))

    def test_no_index_left(self) -> None:
        model = CardModel(Options(), slots=2)
        model.add("a")
        model.add("b")
        self.assertIsNone(model.add("c").number)
        model.remove("a")
        self.assertEqual(model.add("c").number, 0)

    def test_given_card_number_taken(self) -> None:
        model = CardModel(Options(index=(-1, 0)))
        self.assertEqual(model.add("a").number, 0)
        clash = model.add("b")
        self.assertIsNone(clash.number)
        # The failed probe gave its index back: the next card takes it.
        self.assertEqual(model.add("c").dev, 1)

    def test_cmdline(self) -> None:
        self.assertEqual(OPTIONS.cmdline("snd_ens1370"),
                         ["snd_ens1370.index=5,6,7", "snd_ens1370.id=First,Second,Third",
                          "snd_ens1370.enable=1,1,0"])
        self.assertEqual(Options().cmdline("snd_ens1370"), [])


class ViolationTest(unittest.TestCase):
    def test_plain_kernel_33rd_card_missing(self) -> None:
        """Recorded: the plain kernel's 33rd hot-add of one ES1370."""
        model = CardModel(Options())
        for _ in range(32):
            model.add("snd")
            model.remove("snd")
        expected = model.add("snd")
        self.assertEqual(expected.number, 0)
        bad = violation(expected, PCI, [], model, ())
        self.assertIn("no card appeared, model: card 0", bad)

    def test_plain_kernel_replugged_card_loses_its_options(self) -> None:
        model = CardModel(OPTIONS)
        model.add("snd3")
        model.remove("snd3")
        expected = model.add("snd3")
        # The plain kernel's second probe took index 1: card 6, Second.
        bad = violation(expected, PCI, [card(6, "Second")], model, OPTIONS.ids)
        self.assertEqual(bad, "card 6, model: card 5 (index 0)")
        bad = violation(expected, PCI, [card(5, "Second")], model, OPTIONS.ids)
        self.assertEqual(bad, "id Second, model: First (index 0)")

    def test_default_id_must_not_be_a_given_one(self) -> None:
        model = CardModel(Options(ids=("First",)))
        model.add("a")
        expected = model.add("b")
        self.assertIsNone(expected.id)
        other = "0000:00:04.0"
        cards = [card(0, "First"), card(1, "First", other)]
        self.assertIn("given for another index",
                      violation(expected, other, cards, model, ("First",)))

    def test_card_where_none_belongs(self) -> None:
        model = CardModel(OPTIONS)
        model.add("a")
        model.add("b")
        off = model.add("c")
        bad = violation(off, PCI, [card(0)], model, OPTIONS.ids)
        self.assertIn("appeared, model: none (enable is off at index 2)", bad)

    def test_list_must_match_the_model(self) -> None:
        model = CardModel(Options())
        expected = model.add("a")
        cards = [card(0), card(1, "AudioPCI_1", "0000:00:09.0")]
        self.assertEqual(violation(expected, PCI, cards, model, ()),
                         "cards [0, 1] listed, model: [0]")
        self.assertEqual(violation(expected, PCI, cards[:1], model, ()), "")


class ConsoleTest(unittest.TestCase):
    """Lines a real guest printed (make check at 7.3.4: the plain kernel's
    scenario s, the patched one's t), build/7.3/e2e/sound-*/console.log."""

    def lines(self, name: str) -> list[str]:
        return (DATA / name).read_text().splitlines()

    def test_probe_end_lines(self) -> None:
        ends = [m for line in self.lines("sound-console.log")
                if (m := re.search(PROBED, line))]
        kinds = {(m["pci"], m["err"]) for m in ends}
        self.assertIn((PCI, None), kinds)  # bound
        self.assertIn((PCI, "-19"), kinds)  # rejected: the plain kernel's 33rd
        self.assertIn(("0000:00:05.0", "-2"), kinds)  # enable off
        # Another driver's rejection (atkbd's, at boot) ends no probe.
        self.assertEqual(len(ends), 3)

    def test_card_listing(self) -> None:
        cards = parse_cards(self.lines("sound-cards.log"))
        self.assertEqual(cards, [Card(0, "AudioPCI", "0000:00:05.0"),
                                 Card(5, "First", "0000:00:03.0"),
                                 Card(6, "Second", "0000:00:04.0")])

    def test_listing_command_cannot_fail_on_no_card(self) -> None:
        # With no card the glob stays unexpanded: the loop prints nothing
        # and the command's status is 0, so a failed status means the
        # guest's shell broke.
        self.assertTrue(LIST.endswith("; true"))


class ScenarioTest(unittest.TestCase):
    def test_scenarios_hot_add_forty_times(self) -> None:
        for scenario in scenarios(40, 40):
            self.assertGreaterEqual(sum(op.add for op in scenario.ops), 40)
            adds = sum(op.add for op in scenario.ops)
            self.assertEqual(adds, len(scenario.ops) - adds, scenario.name)

    def test_replug_and_churn(self) -> None:
        self.assertEqual([op.add for op in replug(2)], [True, False, True, False])
        ops = churn(1, 10)
        present: set[int] = set()
        for op in ops:
            self.assertEqual(op.addr in present, not op.add)
            (present.add if op.add else present.discard)(op.addr)
        self.assertEqual(present, set())

    def test_verdict_needs_the_plain_kernel_caught(self) -> None:
        def tally(violation: str = "") -> Tally:
            t = Tally()
            t.probes.append(Probe(1, "snd_ens1370", "snd", PCI, 0, None, {"card": 0},
                                  {"card": 0}, False, 0.5, violation=violation))
            return t
        rows = judge("sound-s", tally(), tally())
        self.assertEqual([ok for _, ok, _ in rows], [True, False])
        self.assertIn("plain kernel passes", rows[1][2])
        rows = judge("sound-s", tally(), tally("no card appeared"))
        self.assertEqual([ok for _, ok, _ in rows], [True, True])


if __name__ == "__main__":
    unittest.main()
