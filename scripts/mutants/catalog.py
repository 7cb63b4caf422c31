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


# The rule of v3, which v4 replaced: every board that takes a number after
# its first board is treated as another board, so a board that comes back
# gets defaults. A mutant of the shared code that the KUnit suite and the
# e2e re-plug scenario both catch.
OWNER = ("\t*first = !bn->owner[nr];\n\tif (*first)\n"
         "\t\tWRITE_ONCE(bn->owner[nr], id);\n"
         "\tassign_bit(nr, bn->foreign, bn->owner[nr] != id);\n")
RETAKEN = ("\t*first = !bn->owner[nr];\n"
           "\tassign_bit(nr, bn->foreign, !*first);\n"
           "\tWRITE_ONCE(bn->owner[nr], id);\n")

# The shared code, once: KUnit's suites catch these.
SHARED = [
    [
        Mutant("devm_ida-never-freed", "a number comes back when its board goes",
               "drivers/base/devres.c", "\tida_free(state->ida, state->id);\n", "\n",
               "kunit:devm_ida"),
        Mutant("board-other-board-gets-values",
               "a board on another board's number gets defaults",
               BOARD_NUMBERS,
               "\tif (!test_bit(nr, bn->foreign) ||\n"
               "\t    board_values_alike(values, count, size))\n",
               "\tif (true)\n", "kunit:board_numbers"),
    ],
    [
        Mutant("board-own-number-not-taken",
               "a board that comes back takes its own number again",
               BOARD_NUMBERS, "\tif (mine >= 0) {\n", "\tif (false) {\n",
               "kunit:board_numbers"),
        Mutant("snd-dev-index-enable-off-reused",
               "ALSA: an index whose enable is off is passed over by later cards",
               "sound/core/init.c", "\t\tset_bit(nr, indexes->skipped);\n", "\n",
               "kunit:snd-dev-index"),
    ],
    [
        Mutant("board-retaken-gets-defaults",
               "the same board back gets the values it had (v3's rule undone)",
               BOARD_NUMBERS, OWNER, RETAKEN, "kunit:board_numbers"),
    ],
    [
        Mutant("board-alike-ignored",
               "a value given alike for every board applies to any board",
               BOARD_NUMBERS, "\tif (count < 2)\n", "\tif (count < 2 || true)\n",
               "kunit:board_numbers"),
    ],
    [
        Mutant("board-never-told", "the driver says which parameter it ignored",
               BOARD_NUMBERS, "\tif (bn->told[nr] != values) {\n", "\tif (false) {\n",
               "kunit:board_numbers"),
    ],
    [
        Mutant("board-number-put-kept",
               "a number taken by hand comes back when its board goes",
               BOARD_NUMBERS, "\tida_free(&bn->ida, nr);\n", "\n",
               "kunit:board_numbers"),
    ],
]

# The drivers QEMU emulates, in guests: e2e catches these.
GUESTS = [
    [
        Mutant("e1000-counter", "the lowest free number", E1000,
               *counter("e1000_get_board_number"), "e2e:a"),
        Mutant("e1000e-counter", "the lowest free number", E1000E,
               *counter("e1000e_get_board_number"), "e2e:b"),
    ],
    [
        Mutant("board-retaken-gets-defaults-e2e",
               "the same board back gets the values it had (v3's rule undone)",
               BOARD_NUMBERS, OWNER, RETAKEN, "e2e:a"),
    ],
    [
        Mutant("board-slot-message-dropped",
               "the driver says which parameter it ignored",
               BOARD_NUMBERS, "\t\tdev_info(dev, ", "\t\tdev_dbg(dev, ", "e2e:f"),
    ],
    [
        Mutant("board-alike-ignored-e2e",
               "a value given alike for every board applies to any board",
               BOARD_NUMBERS, "\tif (count < 2)\n", "\tif (count < 2 || true)\n",
               "e2e:e"),
    ],
]

BATCHES: list[list[Mutant]] = SHARED + GUESTS

# Every converted driver's call sites, two mutants each, found in the tree
# (callsite_mutants()): the static check (checks/callsites.cocci) catches
# them, as it must for the drivers no guest runs.
# A lookup up to the argument after the number, which tells lookups of
# one slot apart.
LOOKUP = re.compile(r"board_(?:slot_value|slot_applies|param_applies)\([^;]*?&(?P<bn>\w+),\s*"
                    r"(?P<nr>[^,;]+?)\s*,\s*[^,;()]+")
PUT = re.compile(r"board_number_put\(&(?P<bn>\w+),[^;]*\);")
DEFINE = re.compile(r"^DEFINE_STATIC_BOARD_NUMBERS\((\w+),", re.M)


def unique(text: str, piece: str) -> bool:
    return text.count(piece) == 1


def callsite_mutants(tree: Path, folders: dict[str, list[str]]) -> list[Mutant]:
    """For each struct board_numbers a driver defines: its first lookup
    given the board's number plus one, and, where the driver numbers a
    board by hand, its first board_number_put() given number 0."""
    mutants = []
    for folder, files in folders.items():
        texts = {f: (tree / f).read_text() for f in files}
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
                put = next(((f, m) for f, t in texts.items() for m in PUT.finditer(t)
                            if m["bn"] == bn and unique(t, m.group(0))), None)
                if put:
                    f, m = put
                    mutants.append(Mutant(
                        f"{bn}-put-wrong-number",
                        "a number taken by hand is given back, that number", f,
                        m.group(0), f"board_number_put(&{bn}, 0);", catcher))
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
