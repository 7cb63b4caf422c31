"""The mutations make mutants applies, and which test must catch each.

A mutation replaces one exact piece of the series' code (it must occur
exactly once in its file, or the catalog is out of date) with a broken
version: the contract's rules undone one at a time. Each names the test
that must go red: a KUnit suite, an e2e scenario, or the fault-injection
run. Mutants of one batch are applied together, so a batch holds at most
one mutant per catcher and per driver: a red catcher then names its
mutant, and no mutant hides another.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mutant:
    name: str
    why: str  # the rule of the contract it breaks
    path: str  # relative to the kernel tree
    old: str
    new: str
    # "kunit:SUITE", "e2e:SCENARIO" or "faults:DRIVER"
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


def slot_given(limit: str = "MAX_UNITS") -> str:
    return f"return board < {limit} && !test_bit(board, p->released);"


SLOT_GIVEN = slot_given()

# The older drivers' lookups: file, the suite, and the line that decides
# whether a slot's values still apply (the one shape every driver uses).
OLDER_DRIVERS = [
    ("8139too", f"{ETH}/realtek/8139too.c", "rtl8139_options", SLOT_GIVEN),
    ("pcnet32", f"{ETH}/amd/pcnet32.c", "pcnet32_options", SLOT_GIVEN),
    ("amd8111e", f"{ETH}/amd/amd8111e.c", "amd8111e_options", SLOT_GIVEN),
    ("ne2k-pci", f"{ETH}/8390/ne2k-pci.c", "ne2k_pci_options", SLOT_GIVEN),
    ("tulip", f"{ETH}/dec/tulip/tulip_core.c", "tulip_options", SLOT_GIVEN),
    ("winbond-840", f"{ETH}/dec/tulip/winbond-840.c", "w840_options", SLOT_GIVEN),
    ("natsemi", f"{ETH}/natsemi/natsemi.c", "natsemi_options", SLOT_GIVEN),
    ("fealnx", f"{ETH}/fealnx.c", "fealnx_options", SLOT_GIVEN),
    ("epic100", f"{ETH}/smsc/epic100.c", "epic_options", SLOT_GIVEN),
    ("atl1e", f"{ETH}/atheros/atl1e/atl1e_param.c", "atl1e_options",
     slot_given("ATL1E_MAX_NIC")),
    ("atl1", f"{ETH}/atheros/atlx/atl1.c", "atl1_options", slot_given("ATL1_MAX_NIC")),
    ("atl2", f"{ETH}/atheros/atlx/atl2.c", "atl2_options", slot_given("ATL2_MAX_NIC")),
    ("via-velocity", f"{ETH}/via/via-velocity.c", "velocity_options", SLOT_GIVEN),
    ("acenic", f"{ETH}/alteon/acenic.c", "ace_options", slot_given("ACE_MAX_MOD_PARMS")),
    ("yellowfin", f"{ETH}/packetengines/yellowfin.c", "yellowfin_options", SLOT_GIVEN),
    ("hamachi", f"{ETH}/packetengines/hamachi.c", "hamachi_options", SLOT_GIVEN),
    ("3c59x", f"{ETH}/3com/3c59x.c", "vortex_options", SLOT_GIVEN),
    ("dl2k", f"{ETH}/dlink/dl2k.c", "rio_options", SLOT_GIVEN),
    ("sundance", f"{ETH}/dlink/sundance.c", "sundance_options", SLOT_GIVEN),
]

E1000 = f"{ETH}/intel/e1000/e1000_main.c"
E1000E = f"{ETH}/intel/e1000e/netdev.c"

LOOKUPS = [
    Mutant(f"{driver}-lookup-ignores-release",
           "a released slot reads as not given", path, line,
           line.replace(" && !test_bit(board, p->released)", ""),
           f"kunit:{suite}")
    for driver, path, suite, line in OLDER_DRIVERS
] + [
    Mutant(f"{name}-lookup-ignores-release", "a released slot reads as not given",
           f"{ETH}/intel/{name}/{param}",
           f"test_bit(adapter->bd_number, {name}_released_slots)", "false",
           f"kunit:{name}_param")
    for name, param in (("e1000", "e1000_param.c"), ("e1000e", "param.c"))
]

NEVER_FREED = Mutant(
    "devm_ida-never-freed", "a number comes back when its board goes",
    "drivers/base/devres.c", "\tida_free(state->ida, state->id);\n", "\n",
    "kunit:devm_ida")

NE2K_OFF_BY_ONE = Mutant(
    "ne2k-pci-off-by-one", "board N reads slot N (the bug the series fixes)",
    f"{ETH}/8390/ne2k-pci.c", "p->full_duplex[board]",
    "p->full_duplex[board + 1]", "kunit:ne2k_pci_options")


def counter(ida: str) -> tuple[str, str]:
    """The old probe counter back: a number that never goes down."""
    call = f"err = devm_ida_alloc(&pdev->dev, &{ida});"
    return call, (call + "\n\tif (err >= 0)\n\t\terr = "
                  "({ static int cards_found; cards_found++; });")


def skip_reset(release: str) -> tuple[str, str]:
    line = f"\t{release}\n"
    return line, "\n"


BATCHES: list[list[Mutant]] = [
    # KUnit: one build for every lookup, one for the other two.
    LOOKUPS,
    [NEVER_FREED, NE2K_OFF_BY_ONE],
    # e2e and fault injection: one guest kernel per batch.
    [
        Mutant("e1000-counter", "the lowest free number", E1000,
               *counter("e1000_board_ida"), "e2e:a"),
        Mutant("e1000e-counter", "the lowest free number", E1000E,
               *counter("e1000e_board_ida"), "e2e:b"),
        Mutant("pcnet32-reset-skipped", "a board that went away leaves defaults",
               f"{ETH}/amd/pcnet32.c",
               *skip_reset("pcnet32_release_slot(&pcnet32_params, lp->board);"),
               "e2e:e"),
    ],
    [
        Mutant("e1000-reset-skipped", "a board that went away leaves defaults",
               E1000, *skip_reset("e1000_release_slot(adapter->bd_number);"),
               "e2e:a"),
        Mutant("e1000e-reset-skipped", "a board that went away leaves defaults",
               E1000E, *skip_reset("e1000e_release_slot(adapter->bd_number);"),
               "e2e:b"),
    ],
    [
        Mutant("e1000-reset-after-failed-probe",
               "a failed probe leaves the slot as it was", E1000,
               "err_sw_init:\n",
               "err_sw_init:\n\te1000_release_slot(adapter->bd_number);\n",
               "faults:e1000"),
    ],
]


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
