# SPDX-License-Identifier: GPL-2.0
"""The reference model (model/model.py) and one probe checked against it
(model/check.py): what the patched kernel must do, and that what the plain
kernel does is named as a violation."""

from __future__ import annotations

import unittest
from pathlib import Path

from guest.agent import parse_add
from model.check import Probe, check
from model.model import DRIVERS, E1000, E1000E, DriverModel, DriverSpec, Expected, Model

PCI = "0000:00:04.0"
DATA = Path(__file__).parent / "test_data"


def stamp(seconds: float, text: str) -> str:
    """A kernel console record, as CONFIG_PRINTK_TIME prints it."""
    return f"[{seconds:12.6f}] {text}"


def agent_line(driver: str, tx: int = -1, rx: int = -1, rx_usecs: int = -1,
               duplex: int = 255, up: int = 0, pci: str = PCI) -> str:
    """nicwatch's "NICWATCH add" line, in the format of its printf."""
    return (f"NICWATCH add ifindex=3 name=eth0 driver={driver} bus={pci} "
            f"tx={tx} rx={rx} rx_usecs={rx_usecs} autoneg=1 advertising=0x2f "
            f"speed=-1 duplex={duplex} up={up}")


def ignoring(driver: str, param: str, number: int, at: float = 20.25,
             pci: str = PCI) -> str:
    """The line a board on a number another board owns logs for each
    parameter it ignores (drivers/base/board_numbers.c)."""
    return stamp(at, f"{driver} {pci}: ignoring {param} for board {number}: "
                     "given for the board that had the number first")


def went_away(driver: str, number: int, at: float = 20.25) -> str:
    """The line the series' old rule logged for a board on a spent slot."""
    return stamp(at, f"{driver} {PCI}: using defaults: the module parameters "
                     f"given for board {number} were for a board that went "
                     "away; configure re-plugged boards with ethtool or a "
                     "systemd.link file")


def e1000_probe(number: int | None, tx: int, rx: int, warn: int | None = None,
                ignored: tuple[str, ...] = ()) -> tuple[dict[str, int | str], list[str]]:
    """The agent's fields and the console lines of one e1000 hot-add:
    @number logged by the patched kernel's dev_dbg() (None: the plain
    kernel, which does not log it), @warn the board of the driver's
    "no configuration" warning, @ignored the parameters the board says
    it ignores, given for the board that had its number first."""
    lines = [stamp(20.1, f"pci {PCI}: [8086:100e] type 00 class 0x020000 "
                         "conventional PCI endpoint")]
    if number is not None:
        lines.append(stamp(20.2, f"e1000 {PCI}: board number {number}"))
        lines += [ignoring("e1000", param, number) for param in ignored]
    if warn is not None:
        lines.append(stamp(20.3, f"e1000 {PCI}: Warning: no configuration for "
                                 f"board #{warn} using defaults for all values"))
    lines += [stamp(20.4, f"e1000 {PCI} eth0: (PCI:33MHz:32-bit) 52:54:00:12:34:56"),
              stamp(20.5, f"e1000 {PCI} eth0: Intel(R) PRO/1000 Network Connection"),
              agent_line("e1000", tx=tx, rx=rx)]
    fields = parse_add(lines[-1])
    assert fields is not None
    return fields, lines


E1000_PARAMS = ("TxDescriptors", "RxDescriptors")


def owned_out(driver: str, gone: tuple[int, ...] = (0,)) -> Model:
    """A model whose @driver boards n0, n1, ... own every slot, with the
    boards of the numbers @gone removed again."""
    model = Model()
    for i in range(DRIVERS[driver].slots):
        model.add(driver, f"n{i}")
    for i in gone:
        model.remove(driver, f"n{i}")
    return model


class ModelNumbers(unittest.TestCase):
    """Which number, values and warning the model expects for each probe."""

    def test_lowest_unowned_number(self) -> None:
        """A new board takes the lowest free number that no board owns: it
        skips a hole whose owner went away, which its owner gets back."""
        model = Model()
        self.assertEqual([model.add("e1000", f"nic{i}").number for i in range(3)],
                         [0, 1, 2])
        model.remove("e1000", "nic1")
        self.assertEqual(model.add("e1000", "nic3").number, 3)
        self.assertEqual(model.add("e1000", "nic1").number, 1)
        self.assertEqual(model.add("e1000", "nic4").number, 4)

    def test_same_board_gets_its_values_back(self) -> None:
        """A board re-added in its place (the same key) owns the number it
        took first: it gets the number and its slot's values back, every
        time, while other boards come and go."""
        model = Model()
        first = model.add("e1000", "nic0")
        self.assertEqual(first, Expected(0, E1000.reported(0), False, told=False))
        model.add("e1000", "nic1")
        for _ in range(3):
            model.remove("e1000", "nic0")
            self.assertEqual(model.add("e1000", "nic0"), first)
        model.remove("e1000", "nic1")
        model.remove("e1000", "nic0")
        self.assertEqual(model.add("e1000", "nic1"),
                         Expected(1, E1000.reported(1), False, told=False))
        self.assertEqual(model.add("e1000", "nic0"), first)

    def test_foreign_number_gets_defaults_and_is_told(self) -> None:
        """Once every slot is owned, a new board takes a number its owner
        left free: defaults, as e1000's values differ per slot, and the
        message. Its owner, back while it is there, takes the lowest free
        number, 32: no slot. The foreign board never comes to own it."""
        model = owned_out("e1000", gone=(5,))
        self.assertEqual(model.add("e1000", "other"),
                         Expected(5, E1000.defaults, False, told=True))
        self.assertEqual(model.add("e1000", "n5"),
                         Expected(32, E1000.defaults, True, told=False))
        model.remove("e1000", "other")
        model.remove("e1000", "n5")
        self.assertEqual(model.add("e1000", "other"),
                         Expected(5, E1000.defaults, False, told=True))
        model.remove("e1000", "other")
        self.assertEqual(model.add("e1000", "n5"),
                         Expected(5, E1000.reported(5), False, told=False))

    def test_alike_parameter_applies_to_foreign_board(self) -> None:
        """pcnet32's full_duplex is given alike for every slot: a foreign
        board gets it too, and has nothing to be told."""
        model = owned_out("pcnet32", gone=(3,))
        self.assertEqual(model.add("pcnet32", "x"),
                         Expected(3, {"duplex": 1}, False, told=False))
        # With every owner present, the next board has no slot: the driver
        # forces full duplex there itself.
        model.add("pcnet32", "n3")
        self.assertEqual(model.add("pcnet32", "y"),
                         Expected(9, {"duplex": 1}, False, told=False))

    def test_alike_is_per_parameter(self) -> None:
        """A foreign board takes each parameter given alike and ignores the
        others; a list of one value, or a number past the list, is not
        alike."""
        spec = DriverSpec(
            name="two", device="two", slots=4,
            params=lambda k: {"ring": 100 + k, "mode": 2},
            reported=lambda k: {"ring": 100 + k, "mode": 2},
            defaults={"ring": 0, "mode": 0},
            shows={"ring": ("ring",), "mode": ("mode",)})
        self.assertEqual((spec.alike("mode", 3), spec.alike("ring", 3)), (True, False))
        self.assertFalse(spec.alike("mode", 4))
        model = DriverModel(spec)
        for i in range(4):
            model.add(f"b{i}")
        model.remove("b2")
        self.assertEqual(model.add("x"), Expected(2, {"ring": 0, "mode": 2}, False, told=True))
        one = DriverSpec(name="one", device="one", slots=1, params=lambda k: {"p": 1},
                         reported=lambda k: {"p": 1}, defaults={"p": 0},
                         shows={"p": ("p",)})
        self.assertFalse(one.alike("p", 0))

    @staticmethod
    def after_failed_probe(driver: str) -> tuple[Expected, Expected]:
        """What a new board, then the board whose first probe failed, get."""
        model = Model()
        model.add(driver, "nic0")
        model.forget(driver, "nic0")
        return model.add(driver, "nic1"), model.add(driver, "nic0")

    def test_failed_probe_gives_up_its_slot(self) -> None:
        """e1000's counter counted the boards that worked: a probe that
        failed frees its number and the slot it claimed, and the next
        board takes both; the failed board comes back as a new one."""
        new, failed = self.after_failed_probe("e1000")
        self.assertEqual(new, Expected(0, E1000.reported(0), False, told=False))
        self.assertEqual(failed, Expected(1, E1000.reported(1), False, told=False))

    def test_failed_probe_owns_its_number(self) -> None:
        """e1000e's counter counted failed probes too: a probe that failed
        frees its number, but took it first and owns it: the next new board
        skips it, the failed board gets it back with its values."""
        new, failed = self.after_failed_probe("e1000e")
        self.assertEqual(new, Expected(1, E1000E.reported(1), False, told=False))
        self.assertEqual(failed, Expected(0, E1000E.reported(0), False, told=False))

    def test_failed_probe_owns_the_number_it_logged(self) -> None:
        """forget() with the number the kernel logged: the board owns that
        slot, not the one the model gave it; a slot with an owner keeps it."""
        model = Model()
        model.add("e1000e", "nic0")
        model.forget("e1000e", "nic0", number=2)
        self.assertEqual([model.add("e1000e", f"nic{i}").number for i in (1, 2, 3)],
                         [0, 1, 3])
        self.assertEqual(model.add("e1000e", "nic0"),
                         Expected(2, E1000E.reported(2), False, told=False))
        model.remove("e1000e", "nic0")
        model.add("e1000e", "late")
        model.forget("e1000e", "late", number=2)  # nic0's: still nic0's
        self.assertEqual(model.add("e1000e", "nic0").number, 2)
        self.assertEqual(model.add("e1000e", "late").number, 4)

    def test_failed_probe_past_the_slots_owns_nothing(self) -> None:
        """Numbers at or above the slot count have no owner."""
        model = owned_out("e1000", gone=())
        model.add("e1000", "failed")
        model.forget("e1000", "failed")
        model.add("e1000", "next")
        model.remove("e1000", "next")
        self.assertEqual(model.add("e1000", "failed").number, 32)

    def test_beyond_slots_defaults_and_warning(self) -> None:
        """Numbers at or above the slot count get defaults, with the
        warning for drivers that have one (e1000) and without it for
        those that have none (pcnet32, whose driver forces full duplex
        there: its past-slots values)."""
        for name, warns in (("e1000", True), ("e1000e", True), ("pcnet32", False)):
            with self.subTest(driver=name):
                spec = DRIVERS[name]
                model = Model()
                got = [model.add(name, f"nic{i}") for i in range(spec.slots + 2)]
                last_slot = got[spec.slots - 1]
                self.assertEqual(last_slot, Expected(spec.slots - 1,
                                                     spec.reported(spec.slots - 1), False, told=False))
                past = spec.defaults if spec.past_slots is None else spec.past_slots
                for beyond in got[spec.slots:]:
                    self.assertEqual(beyond.values, past)
                    self.assertEqual(beyond.warns, warns)
                self.assertEqual([e.number for e in got], list(range(spec.slots + 2)))

    def test_beyond_slots_nobody_owns(self) -> None:
        """A number beyond the slots comes back to any board with defaults
        and the warning, and no message; a slot number comes back to
        another board as a foreign one."""
        model = Model()
        for i in range(33):
            model.add("e1000", f"nic{i}")
        model.remove("e1000", "nic32")
        self.assertEqual(model.add("e1000", "other"), Expected(32, E1000.defaults, True, told=False))
        model.remove("e1000", "nic31")
        self.assertEqual(model.add("e1000", "another"),
                         Expected(31, E1000.defaults, False, told=True))
        self.assertEqual(model.add("e1000", "nic31"),
                         Expected(33, E1000.defaults, True, told=False))

    def test_drivers_independent(self) -> None:
        """e1000 and e1000e number and own their boards each on their own:
        adding and removing one driver's boards changes nothing for the
        other's."""
        model = Model()
        model.add("e1000", "a0")
        model.add("e1000", "a1")
        model.remove("e1000", "a0")
        e1000e = model.add("e1000e", "a0")
        self.assertEqual(e1000e, Expected(0, DRIVERS["e1000e"].reported(0), False, told=False))
        model.remove("e1000e", "a0")
        self.assertEqual(model.add("e1000", "a2"), Expected(2, E1000.reported(2), False, told=False))
        self.assertEqual(model.add("e1000e", "b0"),
                         Expected(1, DRIVERS["e1000e"].reported(1), False, told=False))
        self.assertEqual(model.add("e1000", "a0"), Expected(0, E1000.reported(0), False, told=False))

    def test_every_driver_owner_and_foreign(self) -> None:
        """Each driver's first and second boards get slots 0's and 1's
        configured values, and slot 0's again when re-added; slot 0's
        differ from the defaults, so that a board on a foreign number
        shows, except where the values are alike (pcnet32)."""
        self.assertEqual(set(DRIVERS),
                         {"e1000", "e1000e", "pcnet32", "tulip", "ne2k-pci"})
        for name, spec in DRIVERS.items():
            with self.subTest(driver=name):
                self.assertNotEqual(spec.reported(0), spec.defaults)
                model = Model()
                self.assertEqual(model.add(name, "n0"), Expected(0, spec.reported(0), False, told=False))
                self.assertEqual(model.add(name, "n1"), Expected(1, spec.reported(1), False, told=False))
                model.remove(name, "n0")
                self.assertEqual(model.add(name, "n0"), Expected(0, spec.reported(0), False, told=False))
                alike = name == "pcnet32"
                self.assertEqual(owned_out(name).add(name, "x"),
                                 Expected(0, spec.reported(0) if alike else spec.defaults,
                                          False, told=not alike))

    def test_told_only_where_a_value_was_given(self) -> None:
        """ne2k-pci's odd slots hold 0, what full_duplex starts with: a
        foreign board on such a number gets defaults without a word."""
        model = owned_out("ne2k-pci", gone=(0, 1))
        self.assertEqual([model.add("ne2k-pci", f"m{i}").told for i in range(2)],
                         [True, False])

    def test_applied_values(self) -> None:
        """Each driver's parameters show in what it reports: all of them
        applied are the slot's values, none the defaults."""
        for name, spec in DRIVERS.items():
            with self.subTest(driver=name):
                for slot in range(spec.slots):
                    self.assertEqual(spec.applied(slot, set(spec.params(slot))),
                                     spec.reported(slot))
                    self.assertEqual(spec.applied(slot, set()), spec.defaults)

    def test_added_twice_refused(self) -> None:
        """A device id already bound cannot be added again."""
        model = Model()
        model.add("tulip", "t0")
        with self.assertRaises(ValueError):
            model.add("tulip", "t0")

    def test_cmdline_gives_each_slot(self) -> None:
        """The boot parameters hold one value per slot, in slot order."""
        args = E1000.cmdline()
        tx = next(a for a in args if a.startswith("e1000.TxDescriptors="))
        values = [int(v) for v in tx.split("=", 1)[1].split(",")]
        self.assertEqual(len(values), E1000.slots)
        self.assertEqual(values[:2], [E1000.reported(0)["tx"], E1000.reported(1)["tx"]])
        self.assertTrue(any(a.startswith("ne2k_pci.full_duplex=")
                            for a in DRIVERS["ne2k-pci"].cmdline()))


class CheckPlainAndPatched(unittest.TestCase):
    """check() on what the plain and the patched kernel do on a re-add."""

    def re_added(self) -> tuple[Model, Expected]:
        """The model after e1000 board nic0 was added, removed and added
        again: it expects number 0 with slot 0's values."""
        model = Model()
        model.add("e1000", "nic0")
        model.remove("e1000", "nic0")
        return model, model.add("e1000", "nic0")

    def foreign(self, driver: str = "e1000") -> Expected:
        """What a new board expects once every slot is owned and the owner
        of number 0 went away: that number, a foreign one."""
        return owned_out(driver).add(driver, "other")

    def test_plain_reused_next_number_is_violation(self) -> None:
        """The plain kernel gives the re-added NIC the next number and
        that slot's rings (slot 1's 520/1544, no "board number" message):
        a violation naming the values."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(None, tx=520, rx=1544)
        probe = check("e1000", "nic0", expected, fields, lines, cycle=2)
        self.assertIn("values", probe.violation)
        self.assertIn("'tx': 520", probe.violation)
        self.assertEqual(probe.number, 1)  # inferred from slot 1's values
        self.assertEqual(probe.cycle, 2)

    def test_patched_re_add_gets_its_values_passes(self) -> None:
        """The patched kernel logs board number 0 for the re-added board
        and the NIC reports slot 0's rings again: no violation."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(0, tx=512, rx=1536)
        probe = check("e1000", "nic0", expected, fields, lines)
        self.assertEqual(probe.violation, "")
        self.assertEqual((probe.number, probe.observed), (0, {"tx": 512, "rx": 1536}))
        self.assertFalse(probe.told)
        self.assertEqual(probe.pci, PCI)

    def test_old_rule_defaults_on_re_add_is_violation(self) -> None:
        """The series' old rule (a slot spent when its board went away):
        the re-added board gets defaults and says why. Its own values are
        what the model expects now."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(0, tx=256, rx=256)
        lines.insert(2, went_away("e1000", 0))
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation,
                         "values {'tx': 256, 'rx': 256}, model {'tx': 512, 'rx': 1536}")

    def test_foreign_board_with_message_passes(self) -> None:
        """A board on a number another board owns: defaults, and one line
        per parameter it ignores."""
        fields, lines = e1000_probe(0, tx=256, rx=256, ignored=E1000_PARAMS)
        probe = check("e1000", "other", self.foreign(), fields, lines)
        self.assertEqual(probe.violation, "")
        self.assertTrue(probe.told)

    def test_foreign_board_with_owner_values_is_violation(self) -> None:
        """A board on a foreign number that gets the owner's values."""
        fields, lines = e1000_probe(0, tx=512, rx=1536)
        self.assertEqual(check("e1000", "other", self.foreign(), fields, lines).violation,
                         "values {'tx': 512, 'rx': 1536}, model {'tx': 256, 'rx': 256}")

    def test_foreign_without_message_is_violation(self) -> None:
        """Defaults on a foreign number, but not a word about it: the silent
        change the message is there to prevent."""
        fields, lines = e1000_probe(0, tx=256, rx=256)
        self.assertEqual(check("e1000", "other", self.foreign(), fields, lines).violation,
                         "ignored-parameter message missing for board 0")

    def test_message_on_own_slot_is_violation(self) -> None:
        """A board on its own number gets its slot's values and must not
        say that it ignores them."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(0, tx=512, rx=1536, ignored=("TxDescriptors",))
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation,
                         "ignored-parameter message printed for board 0")

    def test_message_of_another_device_is_not_ours(self) -> None:
        """Another NIC's message (another PCI address) does not count."""
        fields, lines = e1000_probe(0, tx=256, rx=256)
        lines.insert(1, ignoring("e1000", "TxDescriptors", 0, pci="0000:00:09.0"))
        self.assertEqual(check("e1000", "other", self.foreign(), fields, lines).violation,
                         "ignored-parameter message missing for board 0")

    def test_patched_fresh_board_passes(self) -> None:
        """A first add on the patched kernel: number 0, slot 0's rings."""
        expected = Model().add("e1000", "nic0")
        fields, lines = e1000_probe(0, tx=512, rx=1536)
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation, "")

    def test_pcnet32_full_duplex_past_the_slots(self) -> None:
        """pcnet32's ninth board is forced to full duplex, as the base
        driver does for a board without a slot: half duplex there is a
        violation."""
        model = Model()
        for i in range(8):
            model.add("pcnet32", f"p{i}")
        expected = model.add("pcnet32", "p8")
        self.assertEqual((expected.number, expected.values), (8, {"duplex": 1}))

    def test_wrong_logged_number_is_violation(self) -> None:
        """The right values but the wrong logged number is still caught."""
        expected = Model().add("e1000", "nic0")
        fields, lines = e1000_probe(1, tx=512, rx=1536)
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation,
                         "board number 1, model 0")

    def test_plain_past_the_slots(self) -> None:
        """After 32 hot-add cycles the plain kernel gives board #32 the
        defaults and the warning, where the model expects the re-added
        board's own number 0 and its values: the check names the values
        and reads the number from the warning."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(None, tx=256, rx=256, warn=32)
        probe = check("e1000", "nic0", expected, fields, lines)
        self.assertTrue(probe.violation.startswith("values "), probe.violation)
        self.assertEqual(probe.number, 32)
        self.assertTrue(probe.warned)

    def test_warning_expected_and_missing(self) -> None:
        """A board numbered 32 must warn; the warning missing is a
        violation, the warning present is not."""
        model = Model()
        for i in range(32):
            model.add("e1000", f"nic{i}")
        expected = model.add("e1000", "nic32")
        fields, lines = e1000_probe(32, tx=256, rx=256)
        self.assertEqual(check("e1000", "nic32", expected, fields, lines).violation,
                         "warning missing for board 32")
        fields, lines = e1000_probe(32, tx=256, rx=256, warn=32)
        self.assertEqual(check("e1000", "nic32", expected, fields, lines).violation, "")

    def test_other_driver_is_violation(self) -> None:
        """An agent line from another driver is not taken as the probe."""
        expected = Model().add("e1000", "nic0")
        fields = parse_add(agent_line("e1000e", rx_usecs=1000)) or {}
        self.assertEqual(check("e1000", "nic0", expected, fields, []).violation,
                         "agent saw driver e1000e")

    def test_e1000e_rx_usecs(self) -> None:
        """e1000e: the plain kernel's re-added NIC reports slot 1's
        rx-usecs (1000000 / 1100), the patched one slot 0's (1000000 /
        1000); a foreign board the default mode 3, ignoring
        InterruptThrottleRate."""
        model = Model()
        model.add("e1000e", "nic0")
        model.remove("e1000e", "nic0")
        expected = model.add("e1000e", "nic0")
        plain = parse_add(agent_line("e1000e", tx=256, rx=256, rx_usecs=909)) or {}
        probe = check("e1000e", "nic0", expected, plain, [])
        self.assertNotEqual(probe.violation, "")
        self.assertEqual(probe.number, 1)
        patched = parse_add(agent_line("e1000e", tx=256, rx=256, rx_usecs=1000)) or {}
        lines = [stamp(5.0, f"e1000e {PCI}: board number 0")]
        self.assertEqual(check("e1000e", "nic0", expected, patched, lines).violation, "")
        foreign = parse_add(agent_line("e1000e", tx=256, rx=256, rx_usecs=3)) or {}
        told = lines + [ignoring("e1000e", "InterruptThrottleRate", 0, 5.1)]
        self.assertEqual(check("e1000e", "other", self.foreign("e1000e"), foreign,
                               told).violation, "")
        self.assertEqual(check("e1000e", "other", self.foreign("e1000e"), foreign,
                               lines).violation,
                         "ignored-parameter message missing for board 0")

    def test_tulip_plain_and_patched(self) -> None:
        """tulip shows its number as "tulip<N>:" and its forced medium: the
        plain kernel's re-add (tulip1, AUI from slot 1) is a violation,
        the patched one (tulip0, 10base2 from slot 0) is not, nor a
        foreign board's (no medium forced, options ignored)."""
        model = Model()
        model.add("tulip", "t0")
        model.remove("tulip", "t0")
        expected = model.add("tulip", "t0")
        fields = parse_add(agent_line("tulip")) or {}
        plain = [stamp(9.1, "tulip1: EEPROM default media type Autosense"),
                 stamp(9.2, "tulip: tulip1: Transceiver selection forced to AUI"),
                 agent_line("tulip")]
        probe = check("tulip", "t0", expected, fields, plain)
        self.assertEqual(probe.number, 1)
        self.assertEqual(probe.violation, "values {'media': 2}, model {'media': 1}")
        patched = [stamp(9.1, f"tulip {PCI}: board number 0"),
                   stamp(9.2, "tulip0: EEPROM default media type Autosense"),
                   stamp(9.3, "tulip: tulip0: Transceiver selection forced to 10base2"),
                   agent_line("tulip")]
        self.assertEqual(check("tulip", "t0", expected, fields, patched).violation, "")
        foreign = [stamp(9.1, f"tulip {PCI}: board number 0"),
                   ignoring("tulip", "options", 0, 9.15),
                   stamp(9.2, "tulip0: EEPROM default media type Autosense"),
                   agent_line("tulip")]
        self.assertEqual(check("tulip", "x", self.foreign("tulip"), fields,
                               foreign).violation, "")

    def test_pcnet32_duplex(self) -> None:
        """pcnet32: every slot asks for full duplex, alike, so the re-added
        board and a foreign one get it, and only a board without a slot
        comes up half duplex: what catches the plain kernel, which
        forces full duplex on those too."""
        model = Model()
        model.add("pcnet32", "p0")
        model.remove("pcnet32", "p0")
        expected = model.add("pcnet32", "p0")
        full = parse_add(agent_line("pcnet32", duplex=1, up=1)) or {}
        half = parse_add(agent_line("pcnet32", duplex=0, up=1)) or {}
        self.assertEqual(check("pcnet32", "p0", expected, full, []).violation, "")
        self.assertIn("values", check("pcnet32", "p0", expected, half, []).violation)
        foreign = self.foreign("pcnet32")
        self.assertEqual((foreign.number, foreign.told), (0, False))
        self.assertEqual(check("pcnet32", "x", foreign, full, []).violation, "")
        self.assertEqual(check("pcnet32", "x", foreign, full,
                               [ignoring("pcnet32", "full_duplex", 0)]).violation,
                         "ignored-parameter message printed for board 0")
        beyond = owned_out("pcnet32", gone=()).add("pcnet32", "x")
        self.assertEqual(beyond.number, 8)
        self.assertEqual(check("pcnet32", "x", beyond, full, []).violation, "")
        self.assertIn("values", check("pcnet32", "x", beyond, half, []).violation)


def replay(log: str) -> list[Probe]:
    """Scenario a's hot-plug cycles, as e2e/runner.py checks them, on a
    recorded console: each probe gets the lines since the last "NICWATCH
    del" up to its "NICWATCH add" line, and each del frees the number."""
    model = Model()
    probes: list[Probe] = []
    lines: list[str] = []
    for line in (DATA / log).read_text().splitlines():
        lines.append(line)
        if line.startswith("NICWATCH add"):
            expected = model.add("e1000", "nic")
            probes.append(check("e1000", "nic", expected, parse_add(line) or {},
                                lines, cycle=len(probes) + 1))
        elif line.startswith("NICWATCH del"):
            model.remove("e1000", "nic")
            lines = []
    return probes


class CheckRecorded(unittest.TestCase):
    """check() on recorded consoles of three e1000 hot-plug cycles
    (test_data/console-e1000-*.log, from CI-like runs of scenario a)."""

    def test_reset_slot_caught(self) -> None:
        """The series before it kept a board's values (v2, recorded then):
        board number 0 each time, slot 0's rings first, then defaults on
        each re-add, where the board owns slot 0: each re-add is caught."""
        probes = replay("console-e1000-patched.log")
        reset = "values {'tx': 256, 'rx': 256}, model {'tx': 512, 'rx': 1536}"
        self.assertEqual([(p.number, p.observed, p.violation) for p in probes],
                         [(0, {"tx": 512, "rx": 1536}, ""),
                          (0, {"tx": 256, "rx": 256}, reset),
                          (0, {"tx": 256, "rx": 256}, reset)])

    def test_plain_kernel_caught(self) -> None:
        """The plain kernel: every re-add takes the next number and that
        slot's rings, a violation from the second cycle on."""
        probes = replay("console-e1000-plain.log")
        self.assertEqual([(p.number, p.violation) for p in probes], [
            (0, ""),
            (1, "values {'tx': 520, 'rx': 1544}, model {'tx': 512, 'rx': 1536}"),
            (2, "values {'tx': 528, 'rx': 1552}, model {'tx': 512, 'rx': 1536}")])


if __name__ == "__main__":
    unittest.main()
