# SPDX-License-Identifier: GPL-2.0
"""End-to-end: hot-plug real emulated NICs in QEMU.

  e2e.runner [--scenarios a,b,c,d,e,f,g] [--cycles 100] [--steps 80] [--no-raw]

Scenarios a-d hot-plug e1000 and e1000e, e-g the older drivers QEMU
emulates (pcnet32, tulip, ne2k-pci); see e2e/scenarios.py.

Boots the patched and the plain (unpatched) guest kernel with every
parameter slot given distinct values (guest/session.py), runs each
scenario's device_add and device_del over QMP (guest/hotplug.py), and
checks every probe against the reference model (model/model.py,
model/check.py) through what the guest agent reads back with ethtool,
or, where that shows nothing, the driver's own messages or
QEMU's trace of the NIC's registers (see model/model.py). A
scenario passes on the patched kernel when no probe breaks the model and
the kernel reports no trouble; the plain kernel must break it ("plain
kernel caught"), or the test proves nothing ("plain kernel passes", or
a plain run that broke first): model/verdict.py's pair().
Writes per-probe records to build/BASE/e2e/probes.json (probes-debug.json for
--variant debug), the verdicts to build/BASE/results/ (see lib/results.py) and the
plot of board number per hot-add cycle to build/BASE/e2e/board-numbers.png.
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import asdict
from pathlib import Path

from e2e import plot
from e2e.scenarios import Op, Scenario, scenarios
from guest import agent, hotplug, initramfs, kernel as guest_kernel, kmemleak
from guest.machine import Guest
from guest.session import Kernel, boot, side_by_side
from lib import results
from lib.common import Config, Failure, config, log, main_guard
from model.check import Probe, check, logged_number
from model.model import BOARD_NUMBER_DYNDBG, DRIVERS, Model
from model.verdict import Tally, Verdict, pair

DEFAULT_SCENARIOS = "a,b,c,d,e,f,g"
# The debug guest boots with acpi=noirq (guest_kernel.variant_args()), so
# a hot-added NIC has no interrupt and cannot be opened: pcnet32 (e) and
# ne2k-pci (g) apply the option under test only when opened.
DEBUG_SCENARIOS = "a,b,c,d,f"
# The agent brings up the interfaces of the drivers that apply an option
# only when opened.
UP = [d.name for d in DRIVERS.values() if d.up]
TIMEOUT = 60.0
# QEMU's time to open its QMP socket, and then the agent's to report (and
# on the debug kernel, kmemleak's to mark what boot left).
QMP_TIMEOUT = 60.0
BOOT_TIMEOUT = 120.0
# What ends the wait after a hot-add: the agent's line, or the driver core's
# message for a probe that failed (its PCI address and error code).
PROBED = hotplug.AGENT_ADD + r"|(\S+): probe with driver \S+ failed with error (-\d+)"
# The kernel's own message at the end of a good probe, for the raw loop.
RAW_DONE = {"e1000": r"Intel\(R\) PRO/1000 Network Connection",
            "e1000e": r"Intel\(R\) PRO/1000 Network Connection"}


def out_dir(cfg: Config) -> Path:
    """build/BASE/e2e: the runs' consoles, initramfs, records and plot."""
    return cfg.build / "e2e"


def cmdline() -> list[str]:
    params = [BOARD_NUMBER_DYNDBG]
    for spec in DRIVERS.values():
        params += spec.cmdline()
    return params


def probe(guest: Guest, model: Model, op: Op, cycle: int) -> Probe:
    """Hot-add one NIC and check what it got against the model, which
    knows the board by its place on the bus (Op.board)."""
    spec = DRIVERS[op.driver]
    expected = model.add(op.driver, op.board)
    added = hotplug.add(guest, spec.device, op.device, PROBED, TIMEOUT,
                        bus=op.bus, addr=hex(op.addr))
    m = added.match
    if m.group(1):
        # The NIC is there but its probe failed (a bridge window too small
        # for its BARs): its number is free again, and the board owns it
        # if it was the first to take it (the number its "board number"
        # line gives, or the model's).
        took = logged_number(op.driver, m.group(1), added.lines)
        model.forget(op.driver, op.board, took)
        return Probe(cycle, op.driver, op.device, m.group(1), -1, None, {}, {},
                     False, added.seconds, failed=int(m.group(2)))
    return check(op.driver, op.device, expected, agent.parse_add(m.group(0)) or {},
                 added.lines, cycle, added.seconds)


def unplug(guest: Guest, model: Model, op: Op) -> float:
    """Hot-remove one NIC, until the agent saw it go; the seconds it took."""
    removed = hotplug.remove(guest, op.device, TIMEOUT)
    model.remove(op.driver, op.board)
    return removed.seconds


def run(scenario: Scenario, kernel: Kernel) -> Tally:
    """@scenario's ops on @kernel, every probe checked against the model;
    on the debug kernel, a kmemleak scan at the end."""
    tally = Tally()
    flavour = kernel.flavour
    stop_early = flavour == "plain" and not scenario.plain_full
    qemu_args = list(scenario.qemu_args)
    for driver in sorted({op.driver for op in scenario.ops}):
        qemu_args += DRIVERS[driver].qemu_args
    # The console in build/BASE/e2e/SCENARIO-FLAVOUR/, the debug kernel's too.
    guest = boot(kernel, scenario.name, cmdline(), qemu_args, timeout=BOOT_TIMEOUT,
                 qmp_timeout=QMP_TIMEOUT,
                 workdir=out_dir(kernel.cfg) / f"{scenario.name}-{flavour}")
    model = Model()
    cycle = 0
    try:
        for op in scenario.ops:
            if op.add:
                cycle += 1
                p = probe(guest, model, op, cycle)
                tally.probes.append(p)
                mark = (f"VIOLATION {p.violation}" if p.violation else
                        f"probe failed ({p.failed}), its number free" if p.failed
                        else "ok")
                print(f"  {scenario.name} {flavour:7} cycle {cycle:3} {op.driver:8} "
                      f"{p.pci} board {p.number} (model {p.expected_number}) "
                      f"{p.observed} {mark}", flush=True)
                if p.violation and stop_early:
                    break
            else:
                tally.removals.append(unplug(guest, model, op))
        # Not guest.session.finish(): the scan comes only once every op
        # went through, and a guest that cannot be scanned fails the run
        # rather than leaving it without its kmemleak figure.
        if kernel.variant:
            tally.note_leaks(kmemleak.scan(guest))
    finally:
        guest.stop()
        tally.note_trouble(guest.trouble)
    return tally


def raw_loop(driver: str, kernel: Kernel, cycles: int = 20) -> float:
    """The floor: add, the kernel's own probe message, del, DEVICE_DELETED."""
    guest = boot(kernel, f"raw-{driver}", [], timeout=BOOT_TIMEOUT,
                 qmp_timeout=QMP_TIMEOUT, workdir=out_dir(kernel.cfg) / f"raw-{driver}")
    adds, dels = [], []
    try:
        for _ in range(cycles):
            added = hotplug.add(guest, DRIVERS[driver].device, "raw", RAW_DONE[driver],
                                TIMEOUT, bus="pci.0", addr="0x3")
            removed = hotplug.remove(guest, "raw", TIMEOUT, gone=None, match_id=False)
            adds.append(added.seconds)
            dels.append(removed.seconds)
    finally:
        guest.stop()
    return statistics.mean(adds) + statistics.mean(dels)


def judge(scenario: str, patched: Tally, plain: Tally | None,
          raw: float | None) -> list[Verdict]:
    """Two rows per scenario, model.verdict.pair()'s: the patched run, and
    the negative control (none on the debug kernel, which is about the
    kernel's own reports, nor for make mutants' kernel alone). Kernel
    trouble or a kmemleak report fails the patched run; its detail gives
    the time of a cycle, against the raw loop's @raw where measured, and
    on the debug kernel kmemleak's count, whether it passed or not."""
    figures = []
    mean = patched.cycle_seconds()
    if raw and mean:
        figures.append(f"{mean:.2f}s per cycle, raw {raw:.2f}s, ratio {mean / raw:.2f}")
    elif mean:
        figures.append(f"{mean:.2f}s per cycle")
    if patched.scans:
        figures.append(f"kmemleak: {patched.leaks} reports")
    return pair(scenario, patched, plain, f"{len(patched.probes)} probes, 0 violations",
                figures="; ".join(figures))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scenarios", help=f"default: {DEFAULT_SCENARIOS}; "
                        f"with --variant debug, {DEBUG_SCENARIOS}")
    parser.add_argument("--cycles", type=int, default=100,
                        help="hot-plug cycles of scenarios a and b")
    parser.add_argument("--steps", type=int, default=80,
                        help="seeded add/remove steps of scenario c")
    parser.add_argument("--raw", action=argparse.BooleanOptionalAction,
                        default=True, help="measure the raw hot-plug loop "
                        "that the harness's overhead is compared with (a "
                        "figure, not a check)")
    parser.add_argument("--soak", type=int, default=1000,
                        help="hot-plug cycles of the soak scenario")
    parser.add_argument("--variant", choices=["debug"],
                        help="the patched kernel with the kernel's checkers "
                        "(qemu-configs/debug.config) and a kmemleak scan at "
                        "the end of each scenario; no plain kernel")
    parser.add_argument("--flavours", default="patched,plain",
                        help="the kernels to run: patched, plain or both "
                        "(make mutants runs its mutated kernel alone)")
    args = parser.parse_args()
    default = DEBUG_SCENARIOS if args.variant else DEFAULT_SCENARIOS
    wanted = (args.scenarios or default).split(",")
    chosen = [s for s in scenarios(args.cycles, args.soak, args.steps)
              if s.name in wanted]
    if not chosen:
        raise Failure(f"no scenario in {args.scenarios!r}")
    flavours = ("patched",) if args.variant else tuple(args.flavours.split(","))
    if not set(flavours) <= {"patched", "plain"} or "patched" not in flavours:
        raise Failure(f"--flavours must be patched or patched,plain, not {args.flavours!r}")
    cfg = config()
    out = out_dir(cfg)
    built = {flavour: guest_kernel.build(cfg, flavour, args.variant) for flavour in flavours}
    nicwatch = agent.build(cfg).read_bytes()
    kernels = {flavour: Kernel(cfg, flavour, k.image, initramfs.for_kernel(
        out / f"initramfs-{flavour}{'-' + args.variant if args.variant else ''}.cpio",
        k, nicwatch, UP), args.variant)
        for flavour, k in built.items()}
    raw = {d: raw_loop(d, kernels["plain"])
           for d in sorted({op.driver for s in chosen for op in s.ops})
           if d in RAW_DONE and "plain" in kernels and args.raw}
    verdicts, records = [], []
    for scenario in chosen:
        log(f"scenario {scenario.name}: {scenario.title}")
        # side_by_side() returns once both runs are done: the lambda runs
        # only while scenario is this one.
        by_kernel = side_by_side(lambda kernel: run(scenario, kernel), kernels)
        drivers = {op.driver for op in scenario.ops}
        # The harness's overhead is measured against the e1000 and e1000e
        # raw loops only; e-g (pcnet32, tulip, ne2k-pci) report their
        # figures without a ratio.
        floor = (statistics.mean(raw[d] for d in drivers)
                 if drivers <= raw.keys() else None)
        verdicts += judge(scenario.name, by_kernel["patched"], by_kernel.get("plain"),
                          floor)
        for flavour, tally in by_kernel.items():
            records.append({"scenario": scenario.name, "kernel": flavour,
                            "trouble": tally.trouble,
                            "probes": [asdict(p) for p in tally.probes]})
        if scenario.name == "a" and "plain" in by_kernel:
            plot.board_numbers(cfg, out / "board-numbers.png", by_kernel["patched"].probes,
                               by_kernel["plain"].probes, scenario.title)
    suffix = f"-{args.variant}" if args.variant else ""
    (out / f"probes{suffix}.json").write_text(json.dumps(records, indent=1))
    titles = {s.name: s.title for s in chosen}
    # The cover letter reads the default scenarios' run; other choices
    # (make demo's a, the soak) are kept apart.
    chosen_part = "" if args.scenarios in (None, default) else f"-{args.scenarios}"
    results.save(cfg, f"e2e{suffix}{chosen_part}", verdicts, titles=titles)
    print("raw loop per cycle: " + ", ".join(f"{d} {s:.2f}s" for d, s in raw.items()))
    print(f"records: {out / f'probes{suffix}.json'}")
    if (out / "board-numbers.png").exists():
        print(f"plot: {out / 'board-numbers.png'}")
    print("\nscenario / kernel      result  detail")
    return results.report("e2e", verdicts, 16)


if __name__ == "__main__":
    main_guard(main)
