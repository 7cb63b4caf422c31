# SPDX-License-Identifier: GPL-2.0
"""The mutations make mutants applies, and which test must catch each.

A mutation replaces one exact piece of the series' code (it must occur
exactly once in its file, or the catalog is out of date) with a broken
version: the contract's rules undone one at a time. Each names the test
that must go red: a KUnit suite, an e2e scenario, the fault-injection
run, or, for every converted driver's call sites, the static check. Mutants of one batch are applied together, so a batch holds at most
one mutant per catcher and per driver: a red catcher then names its
mutant, and no mutant hides another.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mutant:
    name: str
    why: str  # the rule of the contract it breaks
    path: str  # relative to the kernel tree
    old: str
    new: str
    # "kunit:SUITE", "e2e:SCENARIO", "faults:DRIVER" or "callsites:DIR"
    catcher: str

    @property
    def kind(self) -> str:
        return self.catcher.split(":", 1)[0]

    @property
    def target(self) -> str:
        return self.catcher.split(":", 1)[1]


class CatalogError(Exception):
    pass


def apply(mutant: Mutant, tree: Path) -> None:
    """Write @mutant into @tree's copy of its file."""
    path = tree / mutant.path
    text = path.read_text()
    found = text.count(mutant.old)
    if found != 1:
        raise CatalogError(
            f"mutant {mutant.name}: the code it changes occurs {found} times "
            f"in {mutant.path} (must be once): the catalog is out of date")
    path.write_text(text.replace(mutant.old, mutant.new))


ETH = "drivers/net/ethernet"
E1000 = f"{ETH}/intel/e1000/e1000_main.c"
E1000E = f"{ETH}/intel/e1000e/netdev.c"
BOARD_NUMBERS = "drivers/base/board_numbers.c"


def counter(getter: str) -> tuple[str, str]:
    """The old probe counter back: a number that never goes down."""
    call = f"err = {getter}(adapter);"
    return call, (call + "\n\tif (err >= 0)\n\t\terr = "
                  "({ static int cards_found; cards_found++; });")


def skip(line: str) -> tuple[str, str]:
    return f"\t{line}\n", "\n"


# The shared code, once: KUnit's suites catch these.
SHARED = [
    [
        Mutant("devm_ida-never-freed", "a number comes back when its board goes",
               "drivers/base/devres.c", "\tida_free(state->ida, state->id);\n", "\n",
               "kunit:devm_ida"),
        Mutant("board-slot-spent-applies",
               "a slot spent by a board that went away reads as not given",
               BOARD_NUMBERS, "\tif (!test_bit(nr, bn->released))\n\t\treturn true;\n",
               "\treturn true;\n", "kunit:board_numbers"),
    ],
    [
        Mutant("board-slot-never-told", "a board on a spent slot is told so",
               BOARD_NUMBERS, "\tif (!test_and_set_bit(nr, bn->told))\n",
               "\tif (false)\n", "kunit:board_numbers"),
        Mutant("snd-dev-index-enable-off-reused",
               "ALSA: an index whose enable is off is passed over by later cards",
               "sound/core/init.c", "\t\tset_bit(nr, indexes->skipped);\n", "\n",
               "kunit:snd-dev-index"),
    ],
    [
        Mutant("board-number-put-slot-kept",
               "a board numbered by hand that goes away spends its slot",
               BOARD_NUMBERS, "\tboard_slot_release(bn, nr);\n\tida_free(&bn->ida, nr);\n",
               "\tida_free(&bn->ida, nr);\n", "kunit:board_numbers"),
    ],
]

# The drivers QEMU emulates, in guests: e2e and fault injection catch these.
GUESTS = [
    [
        Mutant("e1000-counter", "the lowest free number", E1000,
               *counter("e1000_get_board_number"), "e2e:a"),
        Mutant("e1000e-counter", "the lowest free number", E1000E,
               *counter("e1000e_get_board_number"), "e2e:b"),
        Mutant("pcnet32-release-skipped", "a board that went away leaves defaults",
               f"{ETH}/amd/pcnet32.c",
               *skip("board_slot_release(&pcnet32_boards, lp->board);"), "e2e:e"),
    ],
    [
        Mutant("e1000-release-skipped", "a board that went away leaves defaults",
               E1000, *skip("e1000_release_slot(adapter);"), "e2e:a"),
        Mutant("e1000e-release-skipped", "a board that went away leaves defaults",
               E1000E, *skip("e1000e_release_slot(adapter);"), "e2e:b"),
        Mutant("tulip-release-skipped", "a board that went away leaves defaults",
               f"{ETH}/dec/tulip/tulip_core.c",
               *skip("board_slot_release(&tulip_boards, tp->board);"), "e2e:f"),
    ],
    [
        Mutant("e1000-release-after-failed-probe",
               "a failed probe leaves the slot as it was", E1000,
               "err_sw_init:\n", "err_sw_init:\n\te1000_release_slot(adapter);\n",
               "faults:e1000"),
        Mutant("board-slot-message-dropped", "a board on a spent slot is told so",
               BOARD_NUMBERS, "\t\tdev_info(dev, ", "\t\tdev_dbg(dev, ", "e2e:a"),
    ],
]

BATCHES: list[list[Mutant]] = SHARED + GUESTS

# Every converted driver's call sites, two mutants each, found in the tree
# (callsite_mutants()): the static check (checks/callsites.cocci) catches
# them, as it must for the drivers no guest runs.
# A lookup up to the argument after the number, which tells lookups of
# one slot apart.
LOOKUP = re.compile(r"board_slot_(?:value|applies)\([^;]*?&(?P<bn>\w+),\s*"
                    r"(?P<nr>[^,;]+?)\s*,\s*[^,;()]+")
RELEASE = re.compile(r"^[\t ]+board_slot_release\(&(?P<bn>\w+),[^;]*\);\n", re.M)
DEFINE = re.compile(r"^DEFINE_STATIC_BOARD_NUMBERS\((\w+),", re.M)
REMOVE = re.compile(r"\.remove\s*=\s*(\w+)")
FUNCTION = re.compile(r"^\w[^\n;]*?\b(\w+)\([^;{]*?\)\s*\{", re.M | re.S)


def unique(text: str, piece: str) -> bool:
    return text.count(piece) == 1


def without_line(text: str, start: int, end: int) -> tuple[str, str]:
    """(old, new): the line text[start:end] and as many lines before it
    as make it occur once in @text, and the same without that line (two
    remove() callbacks may release with the same line)."""
    first = start
    while not unique(text, text[first:end]) and first > 0:
        first = text.rfind("\n", 0, first - 1) + 1
    return text[first:end], text[first:start]


def callsite_mutants(tree: Path, folders: dict[str, list[str]]) -> list[Mutant]:
    """For each struct board_numbers a driver defines: its first lookup
    given the board's number plus one, and its remove() without the
    release (the release line itself when remove() holds it, or else the
    call of the driver's function that holds it)."""
    mutants = []
    for folder, files in folders.items():
        texts = {f: (tree / f).read_text() for f in files}
        removes = {r for t in texts.values() for r in REMOVE.findall(t)}
        for path, text in texts.items():
            for bn in DEFINE.findall(text):
                catcher = f"callsites:{folder}"
                lookup = next(((f, m) for f, t in texts.items() for m in LOOKUP.finditer(t)
                               if m["bn"] == bn and unique(t, m.group(0))), None)
                if lookup:
                    f, m = lookup
                    start, end = m.start("nr") - m.start(), m.end("nr") - m.start()
                    old = m.group(0)
                    mutants.append(Mutant(
                        f"{bn}-lookup-wrong-number",
                        "probe looks its slot up with the number it was given", f,
                        old, f"{old[:start]}{old[start:end]} + 1{old[end:]}", catcher))
                release = next(((f, m) for f, t in texts.items() for m in RELEASE.finditer(t)
                                if m["bn"] == bn), None)
                if not release:
                    continue
                f, m = release
                holder = [h[1] for h in FUNCTION.finditer(texts[f]) if h.start() < m.start()]
                holder_name = holder[-1] if holder else ""
                if holder_name in removes or not holder_name:
                    mutants.append(Mutant(f"{bn}-release-skipped",
                                          "remove() spends the board's slot", f,
                                          *without_line(texts[f], m.start(), m.end()),
                                          catcher))
                    continue
                call = re.compile(rf"^\t+{holder_name}\([^;]*\);\n", re.M)
                sites = [(g, c) for g, t in texts.items() for c in call.finditer(t)]
                # Called from one place only: that call goes; from several
                # (a PCI and a platform remove()), the release itself.
                g, c = sites[0] if len(sites) == 1 else (f, m)
                mutants.append(Mutant(f"{bn}-release-skipped",
                                      "remove() spends the board's slot", g,
                                      *without_line(texts[g], c.start(), c.end()),
                                      catcher))
    return mutants


def check_batches(batches: list[list[Mutant]]) -> None:
    """Each batch: one mutant per catcher and per file, so that a red
    catcher names its mutant; every name once."""
    names: set[str] = set()
    for batch in batches:
        kinds = {m.kind for m in batch}
        if len(kinds) > 1 and "kunit" in kinds:
            raise CatalogError("a batch mixes KUnit with guest runs")
        for attr in ("catcher", "path"):
            seen = [getattr(m, attr) for m in batch]
            if len(seen) != len(set(seen)):
                raise CatalogError(f"two mutants of one batch share a {attr}: {seen}")
        for m in batch:
            if m.name in names:
                raise CatalogError(f"mutant {m.name} listed twice")
            names.add(m.name)


check_batches(BATCHES)
