# SPDX-License-Identifier: GPL-2.0
"""The reference model (model/model.py) and one probe checked against it
(model/check.py): what the patched kernel must do, and that what the plain
kernel does is named as a violation."""

from __future__ import annotations

import unittest
from pathlib import Path

from guest.agent import parse_add
from model.check import Probe, check
from model.model import DRIVERS, E1000, Expected, Model

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


def told(driver: str, number: int, at: float = 20.25) -> str:
    """The line a board on a spent slot logs (drivers/base/board_numbers.c)."""
    return stamp(at, f"{driver} {PCI}: using defaults: the module parameters "
                     f"given for board {number} were for a board that went "
                     "away; configure re-plugged boards with ethtool or a "
                     "systemd.link file")


def e1000_probe(number: int | None, tx: int, rx: int, warn: int | None = None,
                spent: bool = False) -> tuple[dict[str, int | str], list[str]]:
    """The agent's fields and the console lines of one e1000 hot-add:
    @number logged by the patched kernel's dev_dbg() (None: the plain
    kernel, which does not log it), @warn the board of the driver's
    "no configuration" warning, @spent whether the board says that its
    slot was spent."""
    lines = [stamp(20.1, f"pci {PCI}: [8086:100e] type 00 class 0x020000 "
                         "conventional PCI endpoint")]
    if number is not None:
        lines.append(stamp(20.2, f"e1000 {PCI}: board number {number}"))
    if spent and number is not None:
        lines.append(told("e1000", number))
    if warn is not None:
        lines.append(stamp(20.3, f"e1000 {PCI}: Warning: no configuration for "
                                 f"board #{warn} using defaults for all values"))
    lines += [stamp(20.4, f"e1000 {PCI} eth0: (PCI:33MHz:32-bit) 52:54:00:12:34:56"),
              stamp(20.5, f"e1000 {PCI} eth0: Intel(R) PRO/1000 Network Connection"),
              agent_line("e1000", tx=tx, rx=rx)]
    fields = parse_add(lines[-1])
    assert fields is not None
    return fields, lines


class ModelNumbers(unittest.TestCase):
    """Which number, values and warning the model expects for each probe."""

    def test_lowest_free_number(self) -> None:
        """A probe takes the lowest number free in its driver, filling a
        hole left by a removed board before going higher."""
        model = Model()
        self.assertEqual([model.add("e1000", f"nic{i}").number for i in range(3)],
                         [0, 1, 2])
        model.remove("e1000", "nic1")
        self.assertEqual(model.add("e1000", "nic3").number, 1)
        self.assertEqual(model.add("e1000", "nic4").number, 3)

    def test_released_slot_reads_as_defaults(self) -> None:
        """A bound board's number, once released, comes back with its slot
        reset: the next board taking it gets the defaults, the other
        slots keep their values."""
        model = Model()
        first = model.add("e1000", "nic0")
        self.assertEqual(first, Expected(0, E1000.reported(0), False, told=False))
        model.add("e1000", "nic1")
        model.remove("e1000", "nic0")
        again = model.add("e1000", "nic0")
        self.assertEqual(again, Expected(0, E1000.defaults, False, told=True))
        model.remove("e1000", "nic1")
        self.assertEqual(model.add("e1000", "nic2").values, E1000.defaults)
        # A slot never released still has its values.
        self.assertEqual(model.add("e1000", "nic3"),
                         Expected(2, E1000.reported(2), False, told=False))

    def test_failed_probe_leaves_slot(self) -> None:
        """A probe that failed frees its number but leaves the slot as it
        was: the next board taking the number gets the configured values."""
        model = Model()
        model.add("e1000", "nic0")
        model.forget("e1000", "nic0")
        self.assertEqual(model.add("e1000", "nic1"),
                         Expected(0, E1000.reported(0), False, told=False))

    def test_beyond_slots_defaults_and_warning(self) -> None:
        """Numbers at or above the slot count get defaults, with the
        warning for drivers that have one (e1000) and without it for
        those that have none (pcnet32)."""
        for name, warns in (("e1000", True), ("e1000e", True), ("pcnet32", False)):
            with self.subTest(driver=name):
                spec = DRIVERS[name]
                model = Model()
                got = [model.add(name, f"nic{i}") for i in range(spec.slots + 2)]
                last_slot = got[spec.slots - 1]
                self.assertEqual(last_slot, Expected(spec.slots - 1,
                                                     spec.reported(spec.slots - 1), False, told=False))
                for beyond in got[spec.slots:]:
                    self.assertEqual(beyond.values, spec.defaults)
                    self.assertEqual(beyond.warns, warns)
                self.assertEqual([e.number for e in got], list(range(spec.slots + 2)))

    def test_beyond_slots_release_resets_nothing(self) -> None:
        """Releasing a number beyond the slots resets no slot, and the
        number comes back with defaults and the warning again."""
        model = Model()
        for i in range(33):
            model.add("e1000", f"nic{i}")
        model.remove("e1000", "nic32")
        self.assertEqual(model.add("e1000", "nic32"), Expected(32, E1000.defaults, True, told=False))
        model.remove("e1000", "nic31")
        self.assertEqual(model.add("e1000", "nic31"),
                         Expected(31, E1000.defaults, False, told=True))

    def test_drivers_independent(self) -> None:
        """e1000 and e1000e number their boards each on their own:
        adding and removing one driver's boards changes nothing for the
        other's."""
        model = Model()
        model.add("e1000", "a0")
        model.add("e1000", "a1")
        model.remove("e1000", "a0")
        e1000e = model.add("e1000e", "b0")
        self.assertEqual(e1000e, Expected(0, DRIVERS["e1000e"].reported(0), False, told=False))
        model.remove("e1000e", "b0")
        # e1000e's release reset its own slot 0, not e1000's slot 2.
        self.assertEqual(model.add("e1000", "a2"),
                         Expected(0, E1000.defaults, False, told=True))
        self.assertEqual(model.add("e1000", "a3"), Expected(2, E1000.reported(2), False, told=False))

    def test_every_driver_fresh_number_gets_its_slot(self) -> None:
        """Each driver's first and second boards get slots 0's and 1's
        configured values, as its boot parameters give them; slot 0's
        differ from the defaults, so that a reset shows."""
        self.assertEqual(set(DRIVERS),
                         {"e1000", "e1000e", "pcnet32", "tulip", "ne2k-pci"})
        for name, spec in DRIVERS.items():
            with self.subTest(driver=name):
                model = Model()
                self.assertEqual(model.add(name, "n0"), Expected(0, spec.reported(0), False, told=False))
                self.assertEqual(model.add(name, "n1"), Expected(1, spec.reported(1), False, told=False))
                self.assertNotEqual(spec.reported(0), spec.defaults)
                model.remove(name, "n0")
                self.assertEqual(model.add(name, "n2"),
                                 Expected(0, spec.defaults, False, told=True))

    def test_told_only_where_a_value_was_given(self) -> None:
        """ne2k-pci's odd slots hold 0, what full_duplex starts with: a
        board taking such a spent slot gets defaults without a word."""
        model = Model()
        for i in range(2):
            model.add("ne2k-pci", f"n{i}")
        for i in range(2):
            model.remove("ne2k-pci", f"n{i}")
        self.assertEqual([model.add("ne2k-pci", f"m{i}").told for i in range(2)],
                         [True, False])

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
        again: it expects number 0 with the reset slot's defaults."""
        model = Model()
        model.add("e1000", "nic0")
        model.remove("e1000", "nic0")
        return model, model.add("e1000", "nic0")

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

    def test_patched_reuse_with_defaults_passes(self) -> None:
        """The patched kernel logs board number 0, says that its slot was
        spent, and the NIC reports the defaults: no violation."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(0, tx=256, rx=256, spent=True)
        probe = check("e1000", "nic0", expected, fields, lines)
        self.assertEqual(probe.violation, "")
        self.assertEqual((probe.number, probe.observed), (0, {"tx": 256, "rx": 256}))
        self.assertTrue(probe.told)
        self.assertEqual(probe.pci, PCI)

    def test_spent_slot_without_message_is_violation(self) -> None:
        """Defaults on a spent slot, but not a word about it: the silent
        change the message is there to prevent."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(0, tx=256, rx=256)
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation,
                         "spent-slot message missing for board 0")

    def test_message_on_a_fresh_slot_is_violation(self) -> None:
        """A first add gets its slot's values and must not claim that the
        slot was spent."""
        expected = Model().add("e1000", "nic0")
        fields, lines = e1000_probe(0, tx=512, rx=1536, spent=True)
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation,
                         "spent-slot message printed for board 0")

    def test_message_of_another_device_is_not_ours(self) -> None:
        """Another NIC's message (another PCI address) does not count."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(0, tx=256, rx=256)
        lines.insert(1, told("e1000", 0).replace(PCI, "0000:00:09.0"))
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation,
                         "spent-slot message missing for board 0")

    def test_patched_fresh_board_passes(self) -> None:
        """A first add on the patched kernel: number 0, slot 0's rings."""
        expected = Model().add("e1000", "nic0")
        fields, lines = e1000_probe(0, tx=512, rx=1536)
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation, "")

    def test_wrong_logged_number_is_violation(self) -> None:
        """The right values but the wrong logged number is still caught."""
        expected = Model().add("e1000", "nic0")
        fields, lines = e1000_probe(1, tx=512, rx=1536)
        self.assertEqual(check("e1000", "nic0", expected, fields, lines).violation,
                         "board number 1, model 0")

    def test_plain_past_the_slots(self) -> None:
        """After 32 hot-add cycles the plain kernel gives board #32 the
        defaults and the warning: the model expects number 0 reset, no
        warning, and the check names the number."""
        _, expected = self.re_added()
        fields, lines = e1000_probe(None, tx=256, rx=256, warn=32)
        probe = check("e1000", "nic0", expected, fields, lines)
        self.assertEqual(probe.violation, "board number 32, model 0")
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
        rx-usecs (1000000 / 1100), the patched one the default mode 3."""
        model = Model()
        model.add("e1000e", "nic0")
        model.remove("e1000e", "nic0")
        expected = model.add("e1000e", "nic0")
        plain = parse_add(agent_line("e1000e", tx=256, rx=256, rx_usecs=909)) or {}
        probe = check("e1000e", "nic0", expected, plain, [])
        self.assertNotEqual(probe.violation, "")
        self.assertEqual(probe.number, 1)
        patched = parse_add(agent_line("e1000e", tx=256, rx=256, rx_usecs=3)) or {}
        lines = [stamp(5.0, f"e1000e {PCI}: board number 0"), told("e1000e", 0, 5.1)]
        self.assertEqual(check("e1000e", "nic0", expected, patched, lines).violation, "")

    def test_tulip_plain_and_patched(self) -> None:
        """tulip shows its number as "tulip<N>:" and its forced medium: the
        plain kernel's re-add (tulip1, AUI from slot 1) is a violation,
        the patched one (tulip0, no medium forced) is not."""
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
        self.assertEqual(probe.violation, "values {'media': 2}, model {'media': 0}")
        patched = [stamp(9.1, f"tulip {PCI}: board number 0"), told("tulip", 0, 9.15),
                   stamp(9.2, "tulip0: EEPROM default media type Autosense"),
                   agent_line("tulip")]
        self.assertEqual(check("tulip", "t0", expected, fields, patched).violation, "")

    def test_pcnet32_duplex(self) -> None:
        """pcnet32: every slot forces full duplex, so a reset slot shows as
        half duplex: the plain kernel's re-add (full) is a violation."""
        model = Model()
        model.add("pcnet32", "p0")
        model.remove("pcnet32", "p0")
        expected = model.add("pcnet32", "p0")
        full = parse_add(agent_line("pcnet32", duplex=1, up=1)) or {}
        half = parse_add(agent_line("pcnet32", duplex=0, up=1)) or {}
        self.assertIn("values", check("pcnet32", "p0", expected, full, []).violation)
        self.assertEqual(check("pcnet32", "p0", expected, half,
                               [told("pcnet32", 0)]).violation, "")


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

    def test_silent_reset_caught(self) -> None:
        """The series before the spent-slot message (v2, recorded then):
        board number 0 each time, slot 0's rings first, then the reset
        slot's defaults, without a word: each re-add is caught."""
        probes = replay("console-e1000-patched.log")
        self.assertEqual([(p.number, p.observed, p.violation) for p in probes],
                         [(0, {"tx": 512, "rx": 1536}, ""),
                          (0, {"tx": 256, "rx": 256},
                           "spent-slot message missing for board 0"),
                          (0, {"tx": 256, "rx": 256},
                           "spent-slot message missing for board 0")])

    def test_plain_kernel_caught(self) -> None:
        """The plain kernel: every re-add takes the next number and that
        slot's rings, a violation from the second cycle on."""
        probes = replay("console-e1000-plain.log")
        self.assertEqual([(p.number, p.violation) for p in probes], [
            (0, ""),
            (1, "values {'tx': 520, 'rx': 1544}, model {'tx': 256, 'rx': 256}"),
            (2, "values {'tx': 528, 'rx': 1552}, model {'tx': 256, 'rx': 256}")])


if __name__ == "__main__":
    unittest.main()
