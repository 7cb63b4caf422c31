# SPDX-License-Identifier: GPL-2.0
"""End-to-end, a second subsystem: QEMU's ES1370 sound card hot-plugged.

  e2e.sound [--scenarios s,t] [--cycles 40] [--adds 40] [--flavours patched,plain]

snd-ens1370 (built into the guest kernels, CONFIG_SND_DYNAMIC_MINORS, so
32 cards as in Debian's kernels) takes each card's index=, id= and
enable= at its probe's index. Each scenario boots the patched and the
plain guest kernel side by side (guest/session.py), hot-adds ES1370s
(with "-audiodev none": no sound leaves QEMU) through QMP device_add on
pci.0, waits for the driver core's line that ends the probe (bound, or
rejected or failed, with dynamic debug on for those lines only), lists
the guest's cards from /sys/class/sound and checks the card of every
add, and the whole list, against model/cards.py; device_del then waits
for QEMU's DEVICE_DELETED.

  s  one ES1370 hot-added and removed CYCLES times, no options: on the
     plain kernel no card appears from the 33rd add on (the probe's
     -ENODEV is silent, so only the card list shows it);
  t  ES1370s on three slots with index=5,6,7, id=First,Second,Third
     and enable=1,1,0, churned (seeded) for ADDS hot-adds: every card
     gets its index's card number and id, the third index is passed over
     once a card took it, and a re-plugged card gets its options back.

The plain kernel must break the model (model/verdict.py's pair()).
Verdicts go to build/BASE/results/sound.json, the probes to
build/BASE/e2e/sound-probes.json.
"""

from __future__ import annotations

import argparse
import json
import random
from dataclasses import asdict, dataclass

from e2e.runner import BOOT_TIMEOUT, QMP_TIMEOUT, TIMEOUT, out_dir
from e2e.scenarios import Op
from guest import agent, hotplug, initramfs, kernel as guest_kernel
from guest.machine import Guest
from guest.session import Kernel, boot, finish, side_by_side
from lib import results
from lib.common import Failure, config, log, main_guard
from model.cards import CardModel, Options, parse_cards, violation
from model.check import Probe
from model.verdict import Tally, Verdict, pair

DRIVER = "snd_ens1370"  # the driver, and the built-in module's name
DEVICE = "ES1370"  # QEMU's device model
# QEMU's backend that plays nothing: no sound leaves QEMU.
AUDIO = ("-audiodev", "none,id=snd0")
# The driver core's lines that end a probe, and no other: every card's
# probe ends with one of them, and the rejected one (-ENODEV, the plain
# kernel's 33rd card) is only a dev_dbg().
DYNDBG = 'dyndbg="file dd.c format bound +p; file dd.c format rejects +p"'
PCI = r"(?P<pci>[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7])"
PROBED = (PCI + rf": (?:bus: 'pci': \S+: bound device to driver {DRIVER}$"
          rf"|probe with driver {DRIVER} (?:rejects match|failed with error) "
          r"(?P<err>-\d+))")
# One line per card: number, id, the PCI device it sits on.
LIST = ('for c in /sys/class/sound/card*; do [ -e "$c/number" ] && '
        'echo "CARD $(cat "$c/number") $(cat "$c/id") '
        '$(basename "$(readlink "$c/device")")"; done; true')
SEED = 20041917  # e2e.scenarios.SEED


@dataclass(frozen=True)
class SoundScenario:
    name: str
    title: str
    options: Options
    ops: list[Op]


def replug(cycles: int) -> list[Op]:
    return [op for _ in range(cycles)
            for op in (Op(True, DRIVER, "snd", 3), Op(False, DRIVER, "snd", 3))]


def churn(seed: int, adds: int, slots: int = 3) -> list[Op]:
    """@slots cards plugged, then seeded re-plugs until @adds hot-adds;
    then every card removed."""
    rng = random.Random(seed)
    present = list(range(3, 3 + slots))
    ops = [Op(True, DRIVER, f"snd{a}", a) for a in present]
    while sum(op.add for op in ops) < adds:
        a = rng.choice(present)
        ops += [Op(False, DRIVER, f"snd{a}", a), Op(True, DRIVER, f"snd{a}", a)]
    return ops + [Op(False, DRIVER, f"snd{a}", a) for a in present]


OPTIONS = Options(index=(5, 6, 7), ids=("First", "Second", "Third"),
                  enable=(True, True, False))


def scenarios(cycles: int, adds: int) -> list[SoundScenario]:
    return [
        SoundScenario("s", f"one ES1370 hot-added and removed {cycles} times, "
                      "no options", Options(), replug(cycles)),
        SoundScenario("t", f"ES1370s on three slots, index=5,6,7 "
                      f"id=First,Second,Third enable=1,1,0, {adds} hot-adds "
                      f"(seed {SEED})", OPTIONS, churn(SEED, adds)),
    ]


def pci_address(addr: int) -> str:
    return f"0000:00:{addr:02x}.0"


def probe(guest: Guest, model: CardModel, op: Op, cycle: int,
          given_ids: tuple[str, ...]) -> Probe:
    """Hot-add one card, list the cards, check them against @model."""
    expected = model.add(op.device)
    added = hotplug.add(guest, DEVICE, op.device, PROBED, TIMEOUT,
                        bus="pci.0", addr=hex(op.addr), audiodev="snd0")
    pci = added.match.group("pci")
    err = int(added.match.group("err") or 0)
    lines, status = guest.shell(LIST, TIMEOUT)
    if status:
        raise Failure(f"listing the cards failed (status {status}): {lines[-3:]}")
    cards = parse_cards(lines)
    mine = [c for c in cards if c.pci == pci]
    bad = (f"hot-added at {pci_address(op.addr)}, probed at {pci}"
           if pci != pci_address(op.addr) else
           violation(expected, pci, cards, model, given_ids))
    return Probe(cycle, DRIVER, op.device, pci, expected.dev, None,
                 {"card": -1 if expected.number is None else expected.number},
                 {"card": mine[0].number if mine else -1}, False, added.seconds,
                 violation=bad, failed=err)


def run(scenario: SoundScenario, kernel: Kernel) -> Tally:
    """@scenario's ops on @kernel; the plain kernel stops at its first
    violation (the negative control needs one)."""
    tally = Tally()
    params = [DYNDBG, *scenario.options.cmdline(DRIVER)]
    guest = boot(kernel, f"sound-{scenario.name}", params, list(AUDIO),
                 timeout=BOOT_TIMEOUT, qmp_timeout=QMP_TIMEOUT,
                 workdir=out_dir(kernel.cfg) / f"sound-{scenario.name}-{kernel.flavour}")
    model = CardModel(scenario.options)
    cycle = 0
    try:
        for op in scenario.ops:
            if not op.add:
                removed = hotplug.remove(guest, op.device, TIMEOUT, gone=None)
                model.remove(op.device)
                tally.removals.append(removed.seconds)
                continue
            cycle += 1
            p = probe(guest, model, op, cycle, scenario.options.ids)
            tally.probes.append(p)
            print(f"  {scenario.name} {kernel.flavour:7} add {cycle:3} {p.pci} "
                  f"index {p.expected_number} card {p.observed['card']} "
                  f"(model {p.expected['card']}) "
                  f"{'VIOLATION ' + p.violation if p.violation else 'ok'}", flush=True)
            if p.violation and kernel.flavour == "plain":
                break
    except Failure as err:
        tally.notes.append(str(err))
    finally:
        finish(guest, kernel, tally)
    return tally


def judge(name: str, patched: Tally, plain: Tally | None) -> list[Verdict]:
    adds = len(patched.probes)
    cards = sum(1 for p in patched.probes if p.observed["card"] >= 0)
    return pair(name, patched, plain, f"{adds} hot-adds, {cards} cards, 0 violations")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scenarios", default="s,t")
    parser.add_argument("--cycles", type=int, default=40,
                        help="hot-plug cycles of scenario s (33 or more to "
                        "catch the plain kernel)")
    parser.add_argument("--adds", type=int, default=40, help="hot-adds of scenario t")
    parser.add_argument("--flavours", default="patched,plain",
                        help="the kernels to run: patched, or patched,plain")
    args = parser.parse_args()
    wanted = args.scenarios.split(",")
    chosen = [s for s in scenarios(args.cycles, args.adds) if s.name in wanted]
    if not chosen:
        raise Failure(f"no scenario in {args.scenarios!r}")
    flavours = tuple(args.flavours.split(","))
    if not set(flavours) <= {"patched", "plain"} or "patched" not in flavours:
        raise Failure(f"--flavours must be patched or patched,plain, not {args.flavours!r}")
    cfg = config()
    out = out_dir(cfg)
    out.mkdir(parents=True, exist_ok=True)
    nicwatch = agent.build(cfg).read_bytes()
    kernels = {}
    for flavour in flavours:
        built = guest_kernel.build(cfg, flavour, None)
        kernels[flavour] = Kernel(cfg, flavour, built.image, initramfs.for_kernel(
            out / f"initramfs-sound-{flavour}.cpio", built, nicwatch, []))
    verdicts, records = [], []
    for scenario in chosen:
        log(f"sound {scenario.name}: {scenario.title}")
        by_kernel = side_by_side(lambda kernel: run(scenario, kernel), kernels)
        verdicts += judge(f"sound-{scenario.name}", by_kernel["patched"],
                          by_kernel.get("plain"))
        records += [{"scenario": scenario.name, "kernel": flavour,
                     "trouble": tally.trouble, "notes": tally.notes,
                     "probes": [asdict(p) for p in tally.probes]}
                    for flavour, tally in by_kernel.items()]
    (out / "sound-probes.json").write_text(json.dumps(records, indent=1))
    results.save(cfg, "sound", verdicts,
                 titles={f"sound-{s.name}": s.title for s in chosen})
    print("\nscenario / kernel      result  detail")
    return results.report("sound", verdicts, 16)


if __name__ == "__main__":
    main_guard(main)
