# SPDX-License-Identifier: GPL-2.0
"""Serial console re-assembly (guest.machine.ConsoleLines) and the agent's
line parser (guest.agent.parse_add).

The cut lines of ConsoleLinesTest are crafted from the formats in the code
(nicwatch.c's printf, CONFIG_PRINTK_TIME's "[seconds.micros]" prefix).
ConsoleRecorded reads test_data/console-*.log: the first three hot-plug
cycles of scenario a (e1000) from a CI-like gate run's
build/e2e/a-{patched,plain}/console.log. Those logs are what ConsoleLines
already put together, so they must come through again unchanged, and
their real agent lines are cut by their real kernel records here.
"""

from __future__ import annotations

import unittest
from pathlib import Path

from guest.agent import parse_add
from guest.machine import ConsoleLines

DATA = Path(__file__).parent / "test_data"
RECORDED = sorted(DATA.glob("console-*.log"))

ADD = ("NICWATCH add ifindex=3 name=eth0 driver=e1000 bus=0000:00:04.0 "
       "tx=256 rx=256 rx_usecs=3 autoneg=1 advertising=0x2f speed=-1 "
       "duplex=255 up=0")
REC1 = "[   12.345678] e1000 0000:00:04.0 eth0: (PCI:33MHz:32-bit) 52:54:00:12:34:56"
REC2 = "[   12.345901] e1000 0000:00:04.0 eth0: Intel(R) PRO/1000 Network Connection"


def feed_all(raw: list[str]) -> list[str]:
    """What ConsoleLines makes of @raw, flushed at the end."""
    lines = ConsoleLines()
    out = [line for chunk in raw for line in lines.feed(chunk)]
    return out + lines.flush()


class ConsoleLinesTest(unittest.TestCase):
    """ConsoleLines.feed() and flush() on raw console lines."""

    def test_plain_lines_pass_through(self) -> None:
        """Lines that nothing cut come out as they are, one each, at once."""
        lines = ConsoleLines()
        for raw in ("SHELL ready", REC1, ADD, "", "NICWATCH del ifindex=3 name=eth0"):
            self.assertEqual(lines.feed(raw), [raw])
        self.assertEqual(lines.flush(), [])

    def test_record_cut_into_agent_line(self) -> None:
        """A kernel record landing in the middle of an "add" line is cut
        out: nothing comes out until the line's rest arrives, then the
        agent's line whole, then the record."""
        cut = ADD.index("rx=256")
        lines = ConsoleLines()
        self.assertEqual(lines.feed(ADD[:cut] + REC1), [])
        self.assertEqual(lines.feed(ADD[cut:]), [ADD, REC1])
        self.assertEqual(lines.flush(), [])

    def test_several_records_held(self) -> None:
        """Records on lines of their own while the agent's line waits for
        its rest are held back too, and come out after it in order."""
        cut = ADD.index("up=0")
        lines = ConsoleLines()
        self.assertEqual(lines.feed(ADD[:cut] + REC1), [])
        self.assertEqual(lines.feed(REC2), [])
        self.assertEqual(lines.feed(ADD[cut:]), [ADD, REC1, REC2])
        self.assertEqual(lines.feed("NICWATCH del ifindex=3 name=eth0"),
                         ["NICWATCH del ifindex=3 name=eth0"])

    def test_glued_records_split(self) -> None:
        """Two kernel records whose newline was lost are two lines."""
        self.assertEqual(feed_all([REC1 + REC2]), [REC1, REC2])

    def test_glued_records_inside_agent_line(self) -> None:
        """Two glued records inside the agent's line: the line, then both."""
        cut = ADD.index("speed")
        self.assertEqual(feed_all([ADD[:cut] + REC1 + REC2, ADD[cut:]]),
                         [ADD, REC1, REC2])

    def test_flush_at_close(self) -> None:
        """When the console closes on a cut line, flush() gives the part
        that came and the held records, and leaves nothing behind."""
        cut = ADD.index("duplex")
        lines = ConsoleLines()
        self.assertEqual(lines.feed(ADD[:cut] + REC1), [])
        self.assertEqual(lines.flush(), [ADD[:cut], REC1])
        self.assertEqual(lines.flush(), [])
        self.assertEqual(lines.feed("SHELL ready"), ["SHELL ready"])

    def test_reassembled_line_parses(self) -> None:
        """parse_add() on the re-assembled line gives every field, the
        numeric ones as ints; the cut piece alone lacks fields."""
        cut = ADD.index("x=256")  # inside "tx=256"
        out = feed_all([ADD[:cut] + REC1, ADD[cut:]])
        fields = parse_add(out[0])
        self.assertEqual(fields, {
            "ifindex": 3, "name": "eth0", "driver": "e1000", "bus": "0000:00:04.0",
            "tx": 256, "rx": 256, "rx_usecs": 3, "autoneg": 1, "advertising": 0x2f,
            "speed": -1, "duplex": 255, "up": 0})
        self.assertEqual(parse_add(ADD[:cut]), {
            "ifindex": 3, "name": "eth0", "driver": "e1000", "bus": "0000:00:04.0",
            "t": ""})
        self.assertIsNone(parse_add(out[1]))


class ParseAddTest(unittest.TestCase):
    """guest.agent.parse_add() on its own."""

    def test_other_lines_and_bad_numbers(self) -> None:
        """Only "add" lines parse; a number the agent garbled stays text,
        for the check to name."""
        line = ADD.replace("tx=256", "tx=2x6")
        self.assertIsNone(parse_add(line.replace("NICWATCH add", "NICWATCH del")))
        fields = parse_add(line)
        assert fields is not None
        self.assertEqual((fields["tx"], fields["rx"]), ("2x6", 256))


class ConsoleRecorded(unittest.TestCase):
    """Real console excerpts (test_data/console-*.log), line by line."""

    def test_have_recordings(self) -> None:
        """The recorded excerpts are there (a lost file fails, not skips)."""
        self.assertEqual([p.name for p in RECORDED],
                         ["console-e1000-patched.log", "console-e1000-plain.log"])

    def test_recorded_excerpt(self) -> None:
        """Every recorded line comes through unchanged and in order, and
        every "NICWATCH add" line parses with int fields."""
        for path in RECORDED:
            with self.subTest(log=path.name):
                raw = path.read_text().splitlines()
                out = feed_all(raw)
                self.assertEqual(out, raw)
                adds = [line for line in out if line.startswith("NICWATCH add")]
                self.assertEqual(len(adds), 3)
                for line in adds:
                    fields = parse_add(line)
                    assert fields is not None
                    for key in ("ifindex", "tx", "rx", "rx_usecs", "autoneg",
                                "advertising", "speed", "duplex", "up"):
                        self.assertIsInstance(fields.get(key), int, f"{key} in {line!r}")
                    self.assertEqual(fields["driver"], "e1000")

    def test_recorded_lines_cut_everywhere(self) -> None:
        """Each recorded agent line, cut at every space by the kernel
        records that follow it in the log (two, glued together), comes
        back whole and parses as the uncut line does, the records after it."""
        for path in RECORDED:
            raw = path.read_text().splitlines()
            wrong: list[str] = []
            for at, add in enumerate(raw):
                if not add.startswith("NICWATCH add"):
                    continue
                # (the log's first records, for its last agent line)
                records = [r for r in raw[at:] + raw[:at] if r.startswith("[")][:2]
                for cut in (i for i, c in enumerate(add) if c == " "):
                    out = feed_all([add[:cut] + "".join(records), add[cut:]])
                    if out != [add, *records] or parse_add(out[0]) != parse_add(add):
                        wrong.append(f"line {at + 1} cut at {cut}: {out}")
            self.assertEqual(wrong, [], f"{path.name}: {len(wrong)} cuts wrong")

if __name__ == "__main__":
    unittest.main()
