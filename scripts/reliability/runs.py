# SPDX-License-Identifier: GPL-2.0
"""The reliability runs: the failure paths, driven on purpose, in QEMU.

  reliability.runs [--runs faults,async,surprise,params,loops] [--variant debug]
                  [--short]

  faults    fault injection in probe: the N-th allocation of a bind fails,
            for N = 1, 2, ... until a bind runs untouched (reliability/faults.py)
  async     40 NICs probed asynchronously at boot (reliability/async_probe.py)
  surprise  a NIC removed while frames flow through a QEMU-internal hub,
            50 times (reliability/surprise.py)
  params    bad parameters, on the command line and through modprobe
            (reliability/params.py)
  loops     1000 unbind/bind and 200 remove/rescan cycles inside the guest,
            without QMP (reliability/loops.py)

Each run checks the patched kernel and, as the negative control, the
plain one, which must be caught. With --variant debug the runs use the
guest kernel with the kernel's checkers (qemu-configs/debug.config), on
the patched kernel only, and end each guest with a kmemleak scan. There
the default runs leave out surprise: the debug guest boots with
acpi=noirq (see guest_kernel.variant_args()), so its NICs have no
interrupt and pass no frames; and faults (see DEBUG_RUNS). The last line is "rel: N passed, M failed".
"""

from __future__ import annotations

import argparse
import importlib
import time

from lib import results
from lib.common import Failure, config, log, main_guard
from model.verdict import Verdict
from reliability.common import FLAVOURS, kernels, report

RUNS = ["faults", "async", "surprise", "params", "loops"]
# "async" is a keyword, so its module has a longer name.
MODULES = {"async": "async_probe"}
# The debug kernel's default runs leave out surprise (see above) and
# faults: there, a failed allocation in register_netdevice()'s kobject
# setup makes the net core free the net_device while its kobject's
# delayed release (DEBUG_KOBJECT_RELEASE) is pending: an ODEBUG "free
# active object" WARNING at each failure point inside it, in net/core
# code the series does not touch. "--variant debug --runs faults" shows it.
DEBUG_RUNS = ["async", "params", "loops"]
# make check's short form of each run (--short): shorter loops, fewer
# surprise removals, fault injection on one driver; each still long
# enough that the plain kernel is caught. make check-full runs the
# defaults of each run's module.
SHORT = {"faults": {"drivers": ("e1000",)},
         "surprise": {"cycles": 10},
         "loops": {"binds": 100, "rescans": 20}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", help=f"default: {','.join(RUNS)}; with "
                        f"--variant debug, {','.join(DEBUG_RUNS)}")
    parser.add_argument("--variant", choices=["debug"])
    parser.add_argument("--short", action="store_true",
                        help="make check's short form of each run (SHORT)")
    args = parser.parse_args()
    chosen = (args.runs.split(",") if args.runs else
              DEBUG_RUNS if args.variant else RUNS)
    unknown = sorted(set(chosen) - set(RUNS))
    if unknown:
        raise Failure(f"no such reliability run: {', '.join(unknown)}")
    flavours = ("patched",) if args.variant else FLAVOURS
    cfg = config()
    built = kernels(cfg, args.variant, flavours)
    rows: list[tuple[Verdict, float]] = []
    for name in chosen:
        log(f"reliability: {name}")
        began = time.monotonic()
        module = importlib.import_module(f"reliability.{MODULES.get(name, name)}")
        for row in module.run(built, **(SHORT.get(name, {}) if args.short else {})):
            rows.append((row, time.monotonic() - began))
            print(f"rel: {'PASS' if row[1] else 'FAIL'}  {row[0]:24} {row[2]}", flush=True)
    print("\nrun / kernel               result  detail")
    results.save(cfg, "reliability" + (f"-{args.variant}" if args.variant else ""),
                 [row for row, _ in rows])
    return report([row for row, _ in rows])


if __name__ == "__main__":
    main_guard(main)
