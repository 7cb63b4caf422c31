"""The test gate: "make check" (.ci/run), "make check-full", "make check-debug".

  gate.run [--tier check|full|debug]

Installs what is missing, prepares the tree from Debian's package, runs
the harness's own tests, then every stage, and counts its cases:

  harness      unit tests of the harness itself (model, console, QMP,
               checkpatch rules, bisect delta, cover letter): no QEMU
  checkpatch   checkpatch.pl --strict on each patch
  kunit        every KUnit case of the series, kunit.py on QEMU x86_64
  bisect       each prefix of the series builds, with no new W=1, sparse
               or kernel-doc warning
  kunit-debug  the KUnit cases under KASAN, kmemleak, lockdep and the
               object checks (kunit/debug.kunitconfig)
  guest-kernels  the patched and the plain guest kernel (one case: the
               build)
  e2e          hot-plug scenarios a-g in QEMU on the patched kernel, each
               caught on the plain kernel (the negative control)
  userspace    a re-plugged NIC configured by a hot-plug handler, no module
               parameters; caught without the handler
  reliability  fault injection in probe, 40 NICs probed asynchronously,
               removal under traffic, bad parameters, in-guest loops; each
               caught on the plain kernel too

The tiers run the same stages and scenarios, each with its negative
control; they differ in depth (see TIERS):

  check  the pull-request gate: scenarios a and b 20 cycles, c 40 steps,
         no raw-loop figure; userspace 10 re-plugs; reliability --short
         (100 unbind/bind, 20 remove/rescan, 10 surprise removals, fault
         injection on e1000); kunit-debug skipped (its cold build alone
         is half the cold budget)
  full   the nightly depth: 100-cycle scenarios with the raw loop, 50
         re-plugs, 1000 binds, 200 rescans, 50 surprise removals, both
         drivers under fault injection, kunit-debug
  debug  e2e scenarios a-d and f, a 1000-cycle soak, the async, params
         and loops runs on the debug guest kernel (see e2e.run and
         reliability.run for what is left out there, and why)

Stages run two at a time, as the machine has two cores and a TCG guest
uses one: two workers each take the first stage in STAGES order that
is ready (the guest runs wait for the guest kernels), so the kernel
builds and static checks overlap the guest runs and the longest guest
run starts early. The bisect stage walks the series in a worktree of
its own and guest kernels are built under a lock, so stages that run
side by side share nothing they change.

Each stage's output goes to build/logs/STAGE.log and, prefixed with the
stage's name, to this output. Every stage saves its cases in
build/results/STAGE.json (lib/results.py); from them the gate writes
build/results/gate.ktap and counts. The last line is "N passed, N
failed"; the exit status is non-zero when anything failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field

from gate import ktap
from lib import results
from lib.common import BUILD, REPO, SCRIPTS, Failure, main_guard

LOGS = BUILD / "logs"
KTAP = results.DIR / "gate.ktap"


@dataclass(frozen=True)
class Stage:
    name: str
    module: str  # run as "python3 -m MODULE ARGS"
    args: dict[str, tuple[str, ...]]  # per tier; a tier missing runs none
    after: str = ""  # the stage it needs done first
    result: str = ""  # its build/results/ name, if not its own name
    skip: str = ""  # why a tier that leaves it out does so


# In the order the workers take them, each the first one that is ready:
# the guest kernels first (every guest run needs them), checkpatch and
# KUnit beside them, then the guest runs, longest first, as soon as the
# guest kernels are there, and the long builds (bisect, kunit-debug) on
# whichever worker is free of them.
GUESTS = "guest-kernels"
STAGES = [
    Stage(GUESTS, "guest.kernel",
          {"check": ("--flavour", "patched,plain"),
           "full": ("--flavour", "patched,plain"),
           "debug": ("--flavour", "patched", "--variant", "debug")}),
    Stage("checkpatch", "series.checkpatch", {"check": (), "full": ()}),
    Stage("kunit", "series.kunit", {"check": (), "full": ()}),
    Stage("reliability", "reliability.run", {"check": ("--short",), "full": ()},
          after=GUESTS),
    Stage("e2e", "e2e.run",
          {"check": ("--cycles", "20", "--steps", "40", "--no-raw"), "full": ()},
          after=GUESTS),
    Stage("userspace", "userspace.run", {"check": ("--replugs", "10"), "full": ()},
          after=GUESTS),
    Stage("bisect", "series.bisect", {"check": (), "full": ()}),
    # After KUnit and the guest kernels, whose objects its builds reuse.
    Stage("mutants", "mutants.run", {"full": ()}, after="kunit",
          skip="make check-full only: one KUnit and three guest kernel builds "
          "of mutated trees, and their runs, take longer than make check's "
          "10-minute budget leaves"),
    Stage("kunit-debug", "series.kunit", {"full": ("--variant", "debug")},
          skip="make check-full only: its cold build alone (KASAN, lockdep) "
          "takes a large part of make check's 30-minute cold budget"),
    Stage("soak-debug", "e2e.run",
          {"debug": ("--variant", "debug", "--scenarios", "soak")},
          after=GUESTS, result="e2e-debug-soak"),
    Stage("e2e-debug", "e2e.run", {"debug": ("--variant", "debug")}, after=GUESTS),
    Stage("rel-debug", "reliability.run", {"debug": ("--variant", "debug")},
          after=GUESTS, result="reliability-debug"),
]
SETUP = {"check": [("lib.deps", "tree", "build", "kunit", "checkpatch",
                    "bisect", "e2e"), ("series.tree", "prepare")],
         "debug": [("lib.deps", "tree", "build", "e2e"),
                   ("series.tree", "prepare")]}
SETUP["full"] = SETUP["check"]
HARNESS = Stage("harness", "tests", {"check": (), "full": (), "debug": ()})


@dataclass
class Outcome:
    stage: Stage
    code: int = 0
    seconds: float = 0.0
    verdict: ktap.StageVerdict = field(default_factory=lambda: ktap.StageVerdict(""))


class Gate:
    def __init__(self, tier: str) -> None:
        self.tier = tier
        self.started = time.time()
        self.print_lock = threading.Lock()
        self.setup_seconds = 0.0  # packages and the tree, before any stage
        self.env = dict(os.environ, PYTHONPATH=str(SCRIPTS),
                        BOARD_NUMBERS_TIER=tier, PYTHONUNBUFFERED="1")

    def say(self, line: str) -> None:
        with self.print_lock:
            print(line, flush=True)

    def run_stage(self, stage: Stage) -> Outcome:
        """Run @stage, its output to its log and, prefixed, to ours."""
        LOGS.mkdir(parents=True, exist_ok=True)
        args = stage.args[self.tier]
        self.say(f"==> stage {stage.name}: python3 -m {stage.module} {' '.join(args)}")
        began = time.monotonic()
        with open(LOGS / f"{stage.name}.log", "w", encoding="utf-8") as log_file:
            proc = subprocess.Popen([sys.executable, "-m", stage.module, *args],
                                    cwd=REPO, env=self.env, text=True,
                                    errors="replace", stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
            assert proc.stdout is not None
            for line in proc.stdout:
                log_file.write(line)
                self.say(f"[{stage.name}] {line.rstrip()}")
            code = proc.wait()
        outcome = Outcome(stage, code, time.monotonic() - began)
        outcome.verdict = self.verdict(stage, code)
        self.say(f"==> stage {stage.name} done in {outcome.seconds:.0f}s: "
                 f"{outcome.verdict.passed} passed, {outcome.verdict.failed} failed")
        return outcome

    def verdict(self, stage: Stage, code: int) -> ktap.StageVerdict:
        """@stage's cases from the results it saved in this run; a stage
        that broke before saving, or failed with no failing case, gets a
        failing case that says so."""
        verdict = ktap.StageVerdict(stage.name, base=base_release())
        path = results.DIR / f"{stage.result or stage.name}.json"
        if stage.module == "guest.kernel":
            # A build step: one case, whether it worked.
            verdict.rows = [("build", code == 0, "built" if code == 0 else
                             f"exit {code}, see {LOGS / stage.name}.log")]
            return verdict
        if path.is_file() and path.stat().st_mtime >= self.started:
            record = results.read(path)
            verdict.rows = [(r["name"], r["ok"], r["detail"]) for r in record["rows"]]
        if code != 0 and verdict.failed == 0:
            verdict.rows.append((f"{stage.name} exit status", False,
                                 f"exit {code} without a failing case; see "
                                 f"{LOGS / stage.name}.log"))
        elif not verdict.rows:
            verdict.rows.append((f"{stage.name} results", False,
                                 f"no results saved in {path}"))
        return verdict

    def worker(self, todo: list[Stage], finished: dict[str, Outcome],
               ready: threading.Condition) -> None:
        """Run the first stage of @todo whose predecessor is in
        @finished, until @todo is empty."""
        while True:
            with ready:
                while True:
                    if not todo:
                        return
                    stage = next((s for s in todo if not s.after or s.after in finished),
                                 None)
                    if stage:
                        todo.remove(stage)
                        break
                    ready.wait()
            try:
                outcome = self.run_stage(stage)
            except Exception as err:  # noqa: BLE001 - the gate must go on and count it
                outcome = Outcome(stage, 1, verdict=ktap.StageVerdict(
                    stage.name, [(f"{stage.name} harness error", False, repr(err))]))
                self.say(f"==> stage {stage.name} broke: {err!r}")
            with ready:
                finished[stage.name] = outcome
                ready.notify_all()

    def schedule(self, todo: list[Stage], workers: int = 2) -> dict[str, Outcome]:
        """Run the stages of @todo on @workers workers; their outcomes."""
        finished: dict[str, Outcome] = {}
        ready = threading.Condition()
        threads = [threading.Thread(target=self.worker, args=(todo, finished, ready))
                   for _ in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return finished

    def run(self) -> list[Outcome]:
        began = time.monotonic()
        for step in SETUP[self.tier]:
            self.say(f"==> {' '.join(step)}")
            code = subprocess.run([sys.executable, "-m", *step], cwd=REPO,
                                  env=self.env, check=False).returncode
            if code != 0:
                raise Failure(f"{step[0]} failed; nothing was tested\n"
                              "0 passed, 1 failed")
        self.setup_seconds = time.monotonic() - began
        outcomes = [self.run_stage(HARNESS)]
        finished = self.schedule([s for s in STAGES if self.tier in s.args])
        for stage in STAGES:
            if stage.name in finished:
                outcomes.append(finished[stage.name])
            elif stage.skip and self.tier != "debug":
                outcomes.append(Outcome(stage, verdict=ktap.StageVerdict(
                    stage.name, skip=stage.skip)))
        return outcomes


def ccache_counts() -> dict[str, int]:
    """ccache's hit and miss counters so far (zeros without ccache), so
    that the gate can say whether it ran warm or cold."""
    proc = subprocess.run(["ccache", "--print-stats"], capture_output=True,
                          text=True, check=False) if shutil.which("ccache") else None
    stats = dict(line.split("\t", 1) for line in (proc.stdout if proc else "").splitlines()
                 if "\t" in line)
    def count(key: str) -> int:
        return int(stats.get(key, "0") or 0)

    return {"hits": count("direct_cache_hit") + count("preprocessed_cache_hit"),
            "misses": count("cache_miss")}


def base_release() -> str:
    """The kernel release the tree was unpacked from (series.tree's state)."""
    from series import tree  # the tree module needs the tree's paths only
    return str(tree.load_state().get("version", "?"))


def table(outcomes: list[Outcome], setup: float) -> str:
    lines = ["stage          base        passed  failed   time",
             f"{'setup':14} {'':10} {'':7} {'':7} {setup:5.0f}s  (packages, tree)"]
    for o in outcomes:
        v = o.verdict
        if v.skip:
            lines.append(f"{o.stage.name:14} {'-':10} {'-':>7} {'-':>7}  skipped: {v.skip}")
            continue
        lines.append(f"{o.stage.name:14} {v.base:10} {v.passed:7} {v.failed:7} "
                     f"{o.seconds:5.0f}s")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tier", choices=["check", "full", "debug"],
                        default="check")
    args = parser.parse_args()
    start = time.monotonic()
    gate = Gate(args.tier)
    before = ccache_counts()
    outcomes = gate.run()
    after = ccache_counts()
    compiled = {key: after[key] - before[key] for key in after}
    KTAP.parent.mkdir(parents=True, exist_ok=True)
    KTAP.write_text(ktap.document([o.verdict for o in outcomes]))
    passed = sum(o.verdict.passed for o in outcomes)
    failed = sum(o.verdict.failed for o in outcomes)
    total = time.monotonic() - start
    # The gate's own record, for make figures: which tier, how long each
    # stage took and what it counted.
    results.save("gate", [(o.stage.name, not o.verdict.failed,
                           o.verdict.skip or f"{o.seconds:.0f}s")
                          for o in outcomes],
                 gate_tier=args.tier, seconds=round(total), ccache=compiled,
                 setup_seconds=round(gate.setup_seconds),
                 # The repository's own commit: which gate counted this.
                 repository=subprocess.run(["git", "rev-parse", "--short=12", "HEAD"],
                                           cwd=REPO, capture_output=True, text=True,
                                           check=False).stdout.strip() or "unknown",
                 stages=[{"name": o.stage.name,
                          "base": o.verdict.base, "seconds": round(o.seconds),
                          "passed": o.verdict.passed, "failed": o.verdict.failed,
                          "skip": o.verdict.skip} for o in outcomes])
    print()
    print(table(outcomes, gate.setup_seconds))
    print(f"total time {total:.0f}s ({args.tier} tier); ccache "
          f"{compiled['hits']} hits, {compiled['misses']} misses; "
          f"KTAP: {KTAP.relative_to(REPO)}")
    log_lines = [f"{o.stage.name}: {LOGS / o.stage.name}.log"
                 for o in outcomes if o.verdict.failed]
    if log_lines:
        print("logs of failed stages:\n  " + "\n  ".join(log_lines))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)

