# SPDX-License-Identifier: GPL-2.0
"""The reliability runs' reading of guest output and their models of the
numbers expected: reliability.common (records(), cmdline(),
check_add()), async_probe (layout(), judge()), loops (the modelled
rounds, replay()), params (run_case()), surprise (Console.flowing(),
cycles_on()), and reliability.run's table of runs.

Inputs: test_data/console-e1000-{patched,plain}.log, recorded consoles
of three hot-plug cycles (see test_console.py), and the output of a
kernel stand-in (tests.fakes.Boards: patched or plain numbering) in the
formats of the drivers and the agent. No QEMU."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import io
import random
import re
import time
import unittest
from pathlib import Path
from typing import Callable
from unittest import mock

from lib.common import Failure
from model.model import BOARD_NUMBER_DYNDBG, DRIVERS, Model
from model.verdict import Tally, pair
from reliability import async_probe, common, loops, params, surprise
from reliability import run as rel_run
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
        gives slot 1's values; the patched one was recorded before the
        series said when a board gets defaults (see test_model.py)."""
        for kernel, first in (("patched", "cycle 2: spent-slot message missing"),
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

    def test_numbers_change_hands(self) -> None:
        """The modelled bind rounds: in each round of a driver its two
        NICs swap numbers, and from the second bind on each number comes
        with defaults (its slot was reset)."""
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
                self.assertEqual(expected.values, DRIVERS[driver].defaults)
        a, b = loops.NICS[0][1], loops.NICS[1][1]
        self.assertEqual(numbers[a], [1, 0])
        self.assertEqual(numbers[b], [0, 1])

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
        """A kernel that says a board gets defaults in the first rounds
        only is caught in the third: a message printed for the same NIC
        in an earlier round does not count for a later bind."""
        model, boards = self.start(True)
        tally = Tally()
        binds = loops.expect_binds(4)
        lines = loop_output(boards, binds[:8]) + [
            line for line in loop_output(boards, binds[8:])
            if "using defaults" not in line]
        loops.replay(model, binds, lines, tally, 0)
        self.assertEqual(tally.first(), "cycle 5: spent-slot message missing for board 0")

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


class ParamsGuest:
    """A guest for params.run_case(): modprobe answers @modprobe, the
    module is then loaded or not (@loaded), each hot-add prints the next
    of @adds (the kernel's lines, the agent's values), and each removal
    the agent's del line."""

    def __init__(self, modprobe: tuple[list[str], int], loaded: bool,
                 adds: list[tuple[list[str], dict[str, int]]]) -> None:
        self.modprobe, self.loaded, self.adds = modprobe, loaded, list(adds)
        self.qmp = self
        self.pending: list[str] = []
        self.commands: list[str] = []

    def command(self, name: str, **args: str) -> None:
        if name == "device_add":
            kernel, values = self.adds.pop(0)
            fields = {"tx": 256, "rx": 256, "rx_usecs": -1, **values}
            self.pending = kernel + [
                f"NICWATCH add ifindex=4 name=eth0 driver={args['driver']} "
                f"bus=0000:00:03.0 tx={fields['tx']} rx={fields['rx']} "
                f"rx_usecs={fields['rx_usecs']} autoneg=1 advertising=0x2f "
                "speed=-1 duplex=255 up=0"]
        elif name == "device_del":
            self.pending = ["NICWATCH del ifindex=4 name=eth0"]

    def wait_event(self, name: str, timeout: float,
                   match: Callable[[dict[str, dict[str, str]]], bool]) -> None:
        assert match({"data": {"device": "nic"}})

    def collect_until(self, pattern: str, timeout: float) -> tuple[list[str], re.Match[str]]:
        lines, self.pending = self.pending, []
        m = re.search(pattern, lines[-1]) if lines else None
        if m is None:
            raise Failure(f"console: no line matching {pattern!r}")
        return lines, m

    def shell(self, command: str, timeout: float) -> tuple[list[str], int]:
        self.commands.append(command)
        if command.startswith("modprobe "):
            # The case's load; a later one is the good load after a refusal.
            first = sum(c.startswith("modprobe ") for c in self.commands) == 1
            return self.modprobe if first else ([], 0)
        if command.startswith("grep -q '^e1000e '"):
            return [], 0 if self.loaded else 1
        return [], 0


def case(name: str) -> params.Case:
    return next(c for c in params.CASES1 + params.CASES2 if c.name == name)


def stamp(pci: str, text: str) -> str:
    return f"[   30.000000] e1000e {pci}: {text}"


class ParamsTest(unittest.TestCase):
    REFUSED = ["[   30.000000] e1000e: `abc' invalid for parameter `InterruptThrottleRate'",
               "modprobe: ERROR: could not insert 'e1000e': Invalid argument"]

    def run_case(self, name: str, guest: ParamsGuest) -> Tally:
        tally = Tally()
        params.run_case(guest, case(name), [], tally)  # type: ignore[arg-type]
        return tally

    def test_refused_load(self) -> None:
        """A load that must be refused: refused with the kernel's message,
        nothing noted; and a good load follows, so that nothing is left
        half-loaded."""
        guest = ParamsGuest((self.REFUSED, 1), False, [])
        tally = self.run_case("modprobe non-numeric", guest)
        self.assertEqual((tally.notes, tally.probes), ([], []))
        self.assertEqual(guest.commands[-1], "modprobe e1000e")

    def test_load_not_refused_noted(self) -> None:
        """modprobe that succeeds, or leaves the module in, is noted."""
        tally = self.run_case("modprobe non-numeric",
                              ParamsGuest((self.REFUSED, 0), True, []))
        self.assertEqual(tally.notes, ["modprobe non-numeric: modprobe was not refused"])
        tally = self.run_case("modprobe non-numeric",
                              ParamsGuest((self.REFUSED, 1), True, []))
        self.assertEqual(tally.notes, ["modprobe non-numeric: modprobe was not refused"])

    def test_refused_without_the_message_noted(self) -> None:
        """A refused load without the kernel's message is noted."""
        tally = self.run_case("modprobe non-numeric",
                              ParamsGuest((self.REFUSED[1:], 1), False, []))
        self.assertEqual(len(tally.notes), 1)
        self.assertTrue(tally.notes[0].startswith("modprobe non-numeric: no message /"))

    def bad_value(self, message: bool, readd: dict[str, int]) -> Tally:
        pci = "0000:00:03.0"
        invalid = [stamp(pci, "Invalid Interrupt Throttling Rate (ints/sec) value "
                              "specified (-5) using default of 3")] if message else []
        first = [stamp(pci, "board number 0")] + invalid
        again = [stamp(pci, "board number 0")]
        guest = ParamsGuest(([], 0), True, [(first, {"rx_usecs": 3}), (again, readd)])
        return self.run_case("modprobe negative", guest)

    def test_bad_value_defaults_and_number_back(self) -> None:
        """A bad value: the driver's message, defaults on board 0, and
        board 0 again with defaults after the re-add."""
        tally = self.bad_value(True, {"rx_usecs": 3})
        self.assertEqual((tally.notes, tally.first(), len(tally.probes)), ([], "", 2))

    def test_bad_value_without_message_noted(self) -> None:
        """A bad value taken without the driver's message is noted."""
        tally = self.bad_value(False, {"rx_usecs": 3})
        self.assertEqual(len(tally.notes), 1)
        self.assertIn("modprobe negative: no message /Invalid Interrupt", tally.notes[0])

    def test_readd_with_the_slot_values_is_a_violation(self) -> None:
        """A re-added NIC that does not get defaults breaks the model."""
        tally = self.bad_value(True, {"rx_usecs": 1000000 // 1000})
        self.assertTrue(tally.first().startswith("cycle 2: values "), tally.first())

    def test_cases_match_the_documented_values(self) -> None:
        """The boot lines and cases say what the docstring does: 34 values
        for 33 stored (board 0 takes the first, 512), and every case's
        message matches the kernel's wording."""
        tx = next(p for p in params.BOOT2 if p.startswith("e1000.TxDescriptors="))
        self.assertEqual(len(tx.split("=")[1].split(",")), 34)
        self.assertEqual(case("cmdline 34 values, negative").first,
                         {"tx": 512, "rx": 256})
        kernel_says = {
            "cmdline out-of-range, non-numeric": "e1000 0000:00:03.0: Invalid Transmit "
            "Descriptors value specified (5) using default of 256",
            "modprobe non-numeric": "e1000e: `abc' invalid for parameter "
            "`InterruptThrottleRate'",
            "modprobe 34 values": "InterruptThrottleRate: can only take 33 arguments",
            "modprobe out-of-range": "e1000e 0000:00:03.0: Invalid Interrupt Throttling "
            "Rate (ints/sec) value specified (50) using default of 3",
            "cmdline 34 values, negative": "e1000 0000:00:03.0: Invalid Receive "
            "Descriptors value specified (-5) using default of 256",
        }
        for name, line in kernel_says.items():
            self.assertRegex(line, case(name).message, name)
        self.assertRegex("`abc' invalid for parameter `e1000.RxDescriptors'",
                         params.BOOT_MESSAGES[1])


class HubGuest:
    """A guest for reliability.surprise: two e1000 on a hub, the
    generator's reports on demand (recv growing on every live
    interface), device_add and device_del as QMP does them."""

    def __init__(self, boards: fakes.Boards) -> None:
        self.boards = boards
        self.qmp = self
        self.pending: list[str] = []
        self.live: dict[int, tuple[str, int]] = {}  # ifindex -> (pci, recv)
        self.ids: dict[str, str] = {}  # QMP id -> PCI address
        self.trouble: list[str] = []
        self.proc = mock.Mock()
        self.proc.poll.return_value = None

    def command(self, name: str, **args: str) -> None:
        if name == "device_add":
            pci = f"0000:00:{int(args['addr'], 16):02x}.0"
            self.ids[args["id"]] = pci
            self.pending += self.boards.bind(pci)
            line = self.boards.show(pci)
            self.pending.append(line)
            self.live[int(line.split("ifindex=")[1].split()[0])] = (pci, 0)
        elif name == "device_del":
            pci = self.ids[args["id"]]
            self.boards.unbind(pci)
            index = next(i for i, (p, _) in self.live.items() if p == pci)
            _, recv = self.live.pop(index)
            self.pending += [self.report(index, pci, recv, "gone"),
                             f"NICWATCH del ifindex={index} name=eth0"]

    def wait_event(self, name: str, timeout: float,
                   match: Callable[[dict[str, dict[str, str]]], bool]) -> None:
        assert any(match({"data": {"device": d}}) for d in self.ids)

    @staticmethod
    def report(index: int, pci: str, recv: int, state: str = "up") -> str:
        return (f"HUBTRAFFIC ifindex={index} name=eth{index} bus={pci} state={state} "
                f"sent={recv + 5} recv={recv} errors=0")

    def collect_until(self, pattern: str, timeout: float) -> tuple[list[str], re.Match[str]]:
        regex = re.compile(pattern)
        if not any(regex.search(line) for line in self.pending) and \
                pattern.startswith("HUBTRAFFIC"):
            for index, (pci, recv) in self.live.items():
                self.live[index] = (pci, recv + 10)
                self.pending.append(self.report(index, pci, recv + 10))
        for i, line in enumerate(self.pending):
            m = regex.search(line)
            if m:
                lines, self.pending = self.pending[:i + 1], self.pending[i + 1:]
                return lines, m
        raise Failure(f"console: no line matching {pattern!r}")

    def shell(self, command: str, timeout: float) -> tuple[list[str], int]:
        if command.startswith("hubtraffic "):
            return ["HUBPID=77"], 0
        return [], 0


class SurpriseTest(unittest.TestCase):
    def test_flowing_needs_recv_to_grow(self) -> None:
        """Frames flow at an interface once its recv grows between two of
        its reports; a "gone" report or no report fails the wait."""
        guest = HubGuest(fakes.Boards("e1000", True))
        guest.live = {3: ("0000:00:04.0", 0), 4: ("0000:00:05.0", 0)}
        con = surprise.Console(guest)  # type: ignore[arg-type]
        con.flowing([3, 4])
        self.assertEqual(con.counters.latest[3].recv, 20)
        guest.pending = [guest.report(3, "0000:00:04.0", 20, "gone")]
        with self.assertRaisesRegex(Failure, "vanished while frames were awaited"):
            con.flowing([3])
        silent = HubGuest(fakes.Boards("e1000", True))
        with self.assertRaisesRegex(Failure, r"no frames arriving at ifindex \[9\]"):
            surprise.Console(silent).flowing([9], timeout=0.1)  # type: ignore[arg-type]
        silent.proc.poll.return_value = 1
        with self.assertRaisesRegex(Failure, "console: no line matching"):
            surprise.Console(silent).flowing([9], timeout=0.1)  # type: ignore[arg-type]

    def test_reports_without_new_frames_are_not_flow(self) -> None:
        """Reports whose recv does not grow (the interface is up, nothing
        arrives) end the wait in a failure, naming the interface."""
        class Stuck(HubGuest):
            def collect_until(self, pattern: str,
                              timeout: float) -> tuple[list[str], re.Match[str]]:
                if timeout < 0.05:  # the wait's deadline
                    raise Failure(f"console: no line matching {pattern!r}")
                time.sleep(0.01)
                line = self.report(3, "0000:00:04.0", 40)
                m = re.search(pattern, line)
                assert m is not None
                return [line], m

        con = surprise.Console(Stuck(fakes.Boards("e1000", True)))  # type: ignore[arg-type]
        with self.assertRaisesRegex(Failure, r"no frames arriving at ifindex \[3\]"):
            con.flowing([3], timeout=0.3)
        self.assertEqual(con.counters.latest[3].recv, 40)

    def outcome(self, patched: bool, cycles: int) -> surprise.Outcome:
        out = surprise.Outcome("patched" if patched else "plain")
        con = surprise.Console(HubGuest(fakes.Boards("e1000", patched)))  # type: ignore[arg-type]
        with contextlib.redirect_stdout(io.StringIO()):
            surprise.cycles_on(con, out, cycles, surprise.SEED, stop_early=not patched)
        out.frames = con.counters.totals()
        out.last_words = con.counters.last_words
        return out

    def test_patched_cycles_pass_plain_caught(self) -> None:
        """The cycles on the stand-in: the patched kernel gives the removed
        NIC its number back with defaults every cycle; the plain kernel is
        caught at the first re-add and its run stops there."""
        patched = self.outcome(True, 6)
        self.assertEqual(patched.cycles, 6)
        self.assertEqual(sum(patched.removed.values()), 6)
        self.assertEqual(len(patched.tally.probes), 8)
        self.assertEqual(len(patched.last_words), 6)
        plain = self.outcome(False, 6)
        self.assertEqual(len(plain.tally.probes), 3)
        rows = surprise.verdicts(patched, plain, 6)
        self.assertEqual([(n, ok) for n, ok, _ in rows],
                         [("surprise patched", True), ("surprise plain", True)])
        self.assertTrue(rows[1][2].startswith("plain kernel caught at cycle 1: values"),
                        rows[1][2])


class RunTableTest(unittest.TestCase):
    """reliability.run: the runs it knows and the arguments it gives."""

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
