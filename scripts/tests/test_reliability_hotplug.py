# SPDX-License-Identifier: GPL-2.0
"""The reliability runs that hot-plug, on guest stand-ins that answer
QMP and write the console as the kernel would: params (run_case()) and
surprise (Console.flowing(), cycles_on()), through guest/hotplug.py.

The stand-ins' kernel is tests.fakes.Boards (patched or plain
numbering), in the formats of the drivers and the agent. No QEMU."""

from __future__ import annotations

import contextlib
import io
import re
import time
import unittest
from typing import Callable
from unittest import mock

from lib.common import Failure
from model.verdict import Tally
from reliability import params, surprise
from tests import fakes


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
        board 0 again with the same after the re-add (its own slot's,
        whose value is bad)."""
        tally = self.bad_value(True, {"rx_usecs": 3})
        self.assertEqual((tally.notes, tally.first(), len(tally.probes)), ([], "", 2))

    def test_bad_value_without_message_noted(self) -> None:
        """A bad value taken without the driver's message is noted."""
        tally = self.bad_value(False, {"rx_usecs": 3})
        self.assertEqual(len(tally.notes), 1)
        self.assertIn("modprobe negative: no message /Invalid Interrupt", tally.notes[0])

    def test_readd_with_another_slots_values_is_a_violation(self) -> None:
        """A re-added NIC that gets slot 1's good value (the plain kernel's
        board 1), not its own slot's, breaks the model."""
        tally = self.bad_value(True, {"rx_usecs": 1000000 // 1000})
        self.assertTrue(tally.first().startswith("cycle 2: values "), tally.first())

    def test_good_value_back_after_readd(self) -> None:
        """A good value: board 0 gets it, and again when re-added in the
        same place, which owns slot 0; defaults on the re-add (the
        series' old rule) break the model."""
        pci = "0000:00:03.0"
        number = [stamp(pci, "board number 0")]
        for readd, first in (({"rx_usecs": 1000}, ""),
                             ({"rx_usecs": 3},
                              "cycle 2: values {'rx_usecs': 3}, model {'rx_usecs': 1000}")):
            with self.subTest(readd=readd):
                guest = ParamsGuest(([], 0), True, [(number, {"rx_usecs": 1000}),
                                                    (number, readd)])
                tally = self.run_case("modprobe good", guest)
                self.assertEqual((tally.notes, tally.first(), len(tally.probes)),
                                 ([], first, 2))

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
        NIC its number back with its values every cycle; the plain kernel is
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


if __name__ == "__main__":
    unittest.main()
