# SPDX-License-Identifier: GPL-2.0
"""The reliability runs' reading of guest output and their models of the
numbers expected: reliability.common (records(), cmdline(),
check_add()), async_probe (layout(), judge()), loops (the modelled
rounds, replay()), and reliability.runs' table of runs; the runs that
hot-plug (params, surprise) are test_reliability_hotplug.py's.

Inputs: test_data/console-e1000-{patched,plain}.log, recorded consoles
of three hot-plug cycles (see test_console.py), and the output of a
kernel stand-in (tests.fakes.Boards: patched or plain numbering) in the
formats of the drivers and the agent. No QEMU."""

from __future__ import annotations

import importlib
import inspect
import random
import re
import unittest
from pathlib import Path
from typing import Callable

from model.model import BOARD_NUMBER_DYNDBG, DRIVERS, Model
from model.verdict import Tally, pair
from reliability import async_probe, common, loops
from reliability import runs as rel_run
from tests import fakes

DATA = Path(__file__).parent / "test_data"


def console(name: str) -> list[str]:
    return (DATA / f"console-e1000-{name}.log").read_text().splitlines()


class CommonTest(unittest.TestCase):
    def test_records_split_at_agent_lines(self) -> None:
        """One record per "NICWATCH add" line: the lines up to and with
        it, and its fields; lines after the last one belong to none."""
        lines = console("patched")
        got = common.records(lines)
        self.assertEqual(len(got), 3)
        for chunk, fields in got:
            self.assertTrue(chunk[-1].startswith("NICWATCH add "))
            self.assertEqual(fields["bus"], "0000:00:03.0")
            self.assertEqual(fields["driver"], "e1000")
        self.assertEqual([f["ifindex"] for _, f in got], [2, 3, 4])
        self.assertEqual([(f["tx"], f["rx"]) for _, f in got],
                         [(512, 1536), (256, 256), (256, 256)])
        last = max(i for i, line in enumerate(lines) if line.startswith("NICWATCH add"))
        self.assertEqual(sum((chunk for chunk, _ in got), []), lines[:last + 1])
        self.assertEqual(common.records(["no agent here"]), [])

    def test_records_find_a_line_behind_kernel_output(self) -> None:
        """An agent line that kernel output landed in front of is found."""
        got = common.records(["[    1.0] e1000 0000:00:03.0 eth0: Link Up"
                              "NICWATCH add ifindex=5 name=eth0 driver=e1000 "
                              "bus=0000:00:03.0 tx=256 rx=256"])
        self.assertEqual(got[0][1]["ifindex"], 5)

    def test_recorded_cycles_against_the_model(self) -> None:
        """The recorded cycles, split by records() and checked as the
        reliability runs check a probe (check_add, the model told of each
        removal). Both are caught at the first re-add: the plain kernel
        gives slot 1's values; the patched one was recorded when the series
        gave a re-added board defaults, not its own slot's values (see
        test_model.py)."""
        for kernel, first in (("patched", "cycle 2: values {'tx': 256, 'rx': 256}"),
                              ("plain", "cycle 2: values {'tx': 520, 'rx': 1544}")):
            with self.subTest(kernel=kernel):
                model, tally = Model(), Tally()
                for cycle, (chunk, fields) in enumerate(common.records(console(kernel)), 1):
                    tally.probes.append(common.check_add(model, "e1000", "nic", chunk,
                                                         fields, cycle))
                    model.remove("e1000", "nic")
                self.assertEqual(len(tally.probes), 3)
                self.assertEqual(tally.probes[0].violation, "")
                self.assertTrue(tally.first().startswith(first), tally.first())
                rows = pair("recorded", Tally(probes=tally.probes[:1]), tally, "ok")
                self.assertEqual([ok for _, ok, _ in rows], [True, True])

    def test_cmdline(self) -> None:
        """The e2e boot parameters: the board-number lines on, and every
        slot of each driver given its values."""
        line = common.cmdline()
        self.assertEqual(line[0], BOARD_NUMBER_DYNDBG)
        tx = next(p for p in line if p.startswith("e1000.TxDescriptors="))
        self.assertEqual(tx.split("=")[1].split(",")[:3], ["512", "520", "528"])
        self.assertEqual(len(tx.split(",")), DRIVERS["e1000"].slots)
        self.assertTrue(any(p.startswith("e1000e.InterruptThrottleRate=1000,1100,")
                            for p in line))
        self.assertFalse(any(p.startswith("e1000e.") for p in common.cmdline(("e1000",))))


def async_console(numbers: Callable[[fakes.Boards, str], list[str]],
                  drop: str = "") -> list[str]:
    """The boot console of the async run: every NIC of layout() probed in
    a shuffled order (@numbers binds one), then the agent's lines, also
    shuffled; the agent line of @drop left out."""
    nics = re.findall(r"(e1000e?),id=nic\d+,bus=(\w+\.?\d*),addr=(0x[0-9a-f]+)",
                      " ".join(async_probe.layout()))
    bus_no = {"pci.0": 0, "br1": 1, "br2": 2}
    devices = [(driver, f"0000:{bus_no[bus]:02x}:{int(addr, 16):02x}.0")
               for driver, bus, addr in nics]
    rng = random.Random(7)
    boards = {d: fakes.Boards(d, True) for d in async_probe.COUNTS}
    lines: list[str] = []
    for driver, pci in rng.sample(devices, len(devices)):
        lines += numbers(boards[driver], pci)
    lines += [boards[d].show(pci) for d, pci in rng.sample(devices, len(devices))
              if pci != drop]
    return lines


class AsyncTest(unittest.TestCase):
    def test_layout(self) -> None:
        """40 NICs, 34 e1000 and 6 e1000e, 27 on pci.0 (slots 3-29), 7 on
        br1 and 6 on br2, each in a place of its own, both drivers on
        every bus."""
        args = async_probe.layout()
        devices = [args[i + 1] for i in range(0, len(args), 2) if args[i] == "-device"]
        nics = [d for d in devices if not d.startswith("pci-bridge")]
        self.assertEqual(len(nics), 40)
        drivers = [d.split(",")[0] for d in nics]
        self.assertEqual((drivers.count("e1000"), drivers.count("e1000e")), (34, 6))
        places = [re.search(r"bus=([^,]+),addr=(0x[0-9a-f]+)", d).groups()  # type: ignore[union-attr]
                  for d in nics]
        self.assertEqual(len(set(places)), 40)
        per_bus = {bus: sorted(int(a, 16) for b, a in places if b == bus)
                   for bus in ("pci.0", "br1", "br2")}
        self.assertEqual(per_bus["pci.0"], list(range(3, 30)))
        self.assertEqual(per_bus["br1"], list(range(1, 8)))
        self.assertEqual(per_bus["br2"], list(range(1, 7)))
        for bus in per_bus:
            on_bus = {d.split(",")[0] for d in nics if f"bus={bus}," in d}
            self.assertEqual(on_bus, {"e1000", "e1000e"}, bus)

    def test_patched_numbers_pass(self) -> None:
        """Numbers 0..33 and 0..5 in any order, slot values, the warning
        for boards 32 and 33 only: no violation, no note."""
        tally = Tally()
        async_probe.judge(async_console(lambda boards, pci: boards.bind(pci)), tally)
        self.assertEqual(len(tally.probes), 40)
        self.assertEqual(tally.first(), "")
        self.assertEqual(tally.notes, [])
        warned = sorted(p.number for p in tally.probes if p.warned)  # type: ignore[type-var]
        self.assertEqual(warned, [32, 33])

    def test_shared_numbers_caught(self) -> None:
        """The plain kernel's race: every probe reads the counter before
        any bumps it, so all boards are board 0 with slot 0's values. No
        single probe breaks a rule; the shared numbers are a mismatch."""
        def all_zero(boards: fakes.Boards, pci: str) -> list[str]:
            boards.patched, boards.count = False, 0
            return boards.bind(pci)

        tally = Tally()
        async_probe.judge(async_console(all_zero), tally)
        self.assertEqual(tally.mismatches, ["e1000 numbers are not 0..33 (shared: [0])",
                                            "e1000e numbers are not 0..5 (shared: [0])"])
        self.assertEqual(tally.notes, [])
        rows = pair("async-40", Tally(probes=tally.probes[:1]), tally, "x")
        self.assertEqual(rows[1][:2], ("async-40 plain", True))

    def test_missing_nic_noted(self) -> None:
        """A NIC the agent never reported is noted, with the count."""
        tally = Tally()
        async_probe.judge(async_console(lambda boards, pci: boards.bind(pci),
                                        drop="0000:00:03.0"), tally)
        self.assertEqual(len(tally.notes), 1)
        self.assertRegex(tally.notes[0], r"^e1000e?: (33|5) NICs reported, (34|6) plugged$")


def loop_output(boards: dict[str, fakes.Boards], steps: list[tuple[str, str, str]],
                rescan: bool = False) -> list[str]:
    """The guest's output of the loops modelled by @steps: each bind's
    lines and its read-back; on a rescan both NICs probe before either
    read-back, as there."""
    out: list[str] = []
    shows: list[str] = []
    for kind, driver, pci in steps:
        if kind == "del":
            out += shows
            shows = []
            boards[driver].unbind(pci)
            continue
        out += boards[driver].bind(pci)
        if rescan:
            shows.append(boards[driver].show(pci))
        else:
            out.append(boards[driver].show(pci))
    return out + shows


class LoopsTest(unittest.TestCase):
    def start(self, patched: bool) -> tuple[Model, dict[str, fakes.Boards]]:
        """The four cold-plugged NICs, in the model and in the kernel."""
        model = Model()
        boards = {d: fakes.Boards(d, patched) for d in ("e1000", "e1000e")}
        for driver, pci in loops.NICS:
            model.add(driver, pci)
            boards[driver].bind(pci)
        return model, boards

    def test_numbers_stay_with_their_boards(self) -> None:
        """The modelled bind rounds: in each round of a driver its two
        NICs bind in the other order, and each gets the number it took
        at boot back, with its slot's values, even when it binds first
        and the lower number is free."""
        model, _ = self.start(True)
        steps = loops.expect_binds(4)
        self.assertEqual(len(steps), 16)
        numbers: dict[str, list[int]] = {pci: [] for _, pci in loops.NICS}
        for kind, driver, pci in steps:
            if kind == "del":
                model.remove(driver, pci)
            else:
                expected = model.add(driver, pci)
                numbers[pci].append(expected.number)
                self.assertEqual(expected.values, DRIVERS[driver].reported(expected.number))
        a, b = loops.NICS[0][1], loops.NICS[1][1]
        self.assertEqual(numbers[a], [0, 0])
        self.assertEqual(numbers[b], [1, 1])
        self.assertEqual(steps[2], ("add", "e1000", b))

    def test_rescans_in_bus_order(self) -> None:
        """The modelled rescan rounds: both NICs of a driver removed, then
        found again in bus order, the drivers taking turns."""
        steps = loops.expect_rescans(2)
        self.assertEqual([(k, p) for k, _, p in steps[:4]],
                         [("del", "0000:00:03.0"), ("del", "0000:00:04.0"),
                          ("add", "0000:00:03.0"), ("add", "0000:00:04.0")])
        self.assertEqual({d for _, d, _ in steps[4:]}, {"e1000e"})

    def test_patched_loops_pass(self) -> None:
        """The patched kernel's output of both loops replays against the
        model with no violation, one probe per bind, the cycles counted
        on from the binds to the rescans."""
        model, boards = self.start(True)
        tally = Tally()
        binds = loops.expect_binds(6)
        cycle = loops.replay(model, binds, loop_output(boards, binds), tally, 0)
        self.assertEqual(cycle, 12)
        rescans = loops.expect_rescans(4)
        cycle = loops.replay(model, rescans, loop_output(boards, rescans, rescan=True),
                             tally, cycle)
        self.assertEqual(cycle, 20)
        self.assertEqual(len(tally.probes), 20)
        self.assertEqual((tally.first(), tally.notes), ("", []))

    def test_each_bind_judged_on_its_own_round(self) -> None:
        """A message printed for a NIC after its bind in the first round
        does not count for its bind in the third; printed in the third
        round, before that NIC's read-back, it does."""
        stray = ("[   30.000000] e1000 0000:00:03.0: ignoring TxDescriptors for board 0: "
                 "given for the board that had the number first")
        binds = loops.expect_binds(4)
        self.assertEqual((binds[3], binds[10]), (("add", "e1000", "0000:00:03.0"),) * 2)
        for at, first in ((4, ""), (10, "cycle 5: ignored-parameter message printed "
                                        "for board 0")):
            with self.subTest(at=at):
                model, boards = self.start(True)
                tally = Tally()
                lines = (loop_output(boards, binds[:at]) + [stray]
                         + loop_output(boards, binds[at:]))
                loops.replay(model, binds, lines, tally, 0)
                self.assertEqual(tally.first(), first)

    def test_plain_kernel_caught_first_round(self) -> None:
        """The plain kernel's first re-bind gives a new number with its
        slot's values: a violation, and nothing after it is checked."""
        model, boards = self.start(False)
        tally = Tally()
        binds = loops.expect_binds(6)
        loops.replay(model, binds, loop_output(boards, binds), tally, 0)
        self.assertEqual(len(tally.probes), 1)
        self.assertTrue(tally.first().startswith("cycle 1: values "), tally.first())

    def test_missing_bind_noted(self) -> None:
        """Fewer read-backs than binds run: noted, the ones there checked."""
        model, boards = self.start(True)
        tally = Tally()
        binds = loops.expect_binds(2)
        lines = loop_output(boards, binds)[:-1]
        loops.replay(model, binds, lines, tally, 0)
        self.assertEqual(tally.notes, ["3 binds reported, 4 run"])
        self.assertEqual(len(tally.probes), 3)
        self.assertEqual(tally.first(), "")

    def test_read_back_of_another_nic(self) -> None:
        """A bind reported for another NIC than the one the loop bound is
        a violation, even when its lines are right for that NIC."""
        model, boards = self.start(True)
        tally = Tally()
        binds = loops.expect_binds(1)
        self.assertEqual(binds[2], ("add", "e1000", "0000:00:04.0"))
        lines = loop_output(boards, binds)
        first = next(i for i, line in enumerate(lines) if line.startswith("NICWATCH add"))
        lines[:first + 1] = [line.replace("0000:00:04.0", "0000:00:03.0")
                             for line in lines[:first + 1]]
        loops.replay(model, binds, lines, tally, 0)
        self.assertEqual(tally.first(),
                         "cycle 1: bind of 0000:00:04.0 reported 0000:00:03.0")


class RunTableTest(unittest.TestCase):
    """reliability.runs: the runs it knows and the arguments it gives."""

    def test_every_run_has_a_module(self) -> None:
        """Each run name is a module of reliability with a run(); the debug
        runs are runs."""
        for name in rel_run.RUNS:
            module = importlib.import_module(
                f"reliability.{rel_run.MODULES.get(name, name)}")
            self.assertTrue(callable(getattr(module, "run", None)), name)
        self.assertLessEqual(set(rel_run.DEBUG_RUNS), set(rel_run.RUNS))

    def test_short_forms_are_arguments_of_the_runs(self) -> None:
        """make check's --short arguments are parameters of each run's
        run(), and shorter than its defaults."""
        for name, kwargs in rel_run.SHORT.items():
            assert isinstance(kwargs, dict)
            module = importlib.import_module(
                f"reliability.{rel_run.MODULES.get(name, name)}")
            signature = inspect.signature(module.run)
            for key, value in kwargs.items():
                with self.subTest(run=name, argument=key):
                    self.assertIn(key, signature.parameters)
                    default = signature.parameters[key].default
                    if isinstance(value, int) and isinstance(default, int):
                        self.assertLess(value, default)
                    if isinstance(value, tuple) and isinstance(default, tuple):
                        self.assertLess(set(value), set(default))


if __name__ == "__main__":
    unittest.main()
