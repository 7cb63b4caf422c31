# SPDX-License-Identifier: GPL-2.0
"""The test gate: "make check" (.ci/run), "make check-full", "make check-debug".

  gate.gate [--tier check|full|debug] [--bases 6.12,7.3]

Installs what is missing, prepares the tree of each base (lib.common's
BASES: Debian 12's linux-source-6.12 and Debian 13's linux-source-7.3)
from Debian's package, runs the harness's own tests, then every stage on
every base it runs on (ONLY), and counts its cases:

  harness      unit tests of the harness itself (model, console, QMP,
               checkpatch rules, bisect delta, cover letter): no QEMU
  checkpatch   checkpatch.pl --strict --codespell, 80 columns, on each
               patch
  patchwork    the other checks netdev's patchwork runs, per set and
               patch: set length, subject prefix, Fixes:, Signed-off-by:
  callsites    Coccinelle: in every converted driver, the board number
               devm_board_number_get() gave is the one each lookup and
               the release in remove() use (checks/callsites.cocci)
  probe-counters  the series' Coccinelle rule for make coccicheck
               (scripts/coccinelle/api/board_numbers.cocci) on the base
               and the patched tree: the committed report of every probe
               counter that picks per-device parameters, each hit
               classified, every converted driver found, none left
  kunit        every KUnit case of the series: kunit.py exec on QEMU
               x86_64, on the patched guest kernel, which has the suites
  bisect       each prefix of the series builds with gcc and clang, with
               no new W=1, sparse or kernel-doc warning (sparse where
               the tree takes Debian's: 6.12, not 7.3)
  kunit-debug  the KUnit cases under KASAN, kmemleak, lockdep and the
               object checks (the debug guest kernel,
               qemu-configs/debug.config)
  guest-kernels  the patched and the plain guest kernel (one case: the
               build)
  e2e          hot-plug scenarios a-g in QEMU on the patched kernel, each
               caught on the plain kernel (the negative control)
  sound        QEMU's ES1370 hot-plugged 40 times without options (the
               plain kernel loses the card at the 33rd add) and 40 times
               on three slots with index=, id= and enable=, each card
               checked against ALSA's rule (model/cards.py)
  userspace    hot-plugged NICs configured by Debian's udev from .link
               files, and by a udev rule running ethtool, no module
               parameters; each caught without its files
  reliability  fault injection in probe, 40 NICs probed asynchronously,
               removal under traffic, bad parameters, in-guest loops; each
               caught on the plain kernel too

The tiers run the same stages and scenarios, each with its negative
control; they differ in depth (see TIERS):

  check  the pull-request gate: scenarios a and b 20 cycles, c 40 steps,
         no raw-loop figure; userspace 10 re-plugs; reliability --short
         (100 unbind/bind, 20 remove/rescan, 10 surprise removals, fault
         injection on e1000); bisect walks each prefix on 7.3 (clang
         on the base and the whole series) and builds the whole series
         on 6.12 with gcc and sparse; the guest kernels and the sound
         scenario on both bases, KUnit and e2e on 7.3 only
         (BACKPORT_RUNS); kunit-debug skipped (its cold build alone,
         KASAN and lockdep, is a large part of the budget)
  full   the nightly depth: 100-cycle scenarios with the raw loop, 1000
         binds, 200 rescans, 50 surprise removals, both drivers under
         fault injection, userspace 50 re-plugs, kunit-debug
  debug  e2e scenarios a-d and f, a 1000-cycle soak, the async, params
         and loops runs on the debug guest kernel (see e2e.runner and
         reliability.runs for what is left out there, and why)

Stages run two at a time, as the machine has two cores and a TCG guest
uses one: two workers each take the first stage in STAGES order that
is ready (the guest runs wait for the guest kernels), so the kernel
builds and static checks overlap the guest runs and the longest guest
run starts early. The bisect stage walks the series in a worktree of
its own and guest kernels are built under a lock, so stages that run
side by side share nothing they change.

Each stage's output goes to build/BASE/logs/STAGE.log and, prefixed
with the stage's name and base, to this output. Every stage saves its
cases in build/BASE/results/STAGE.json (lib/results.py); from them the
gate writes build/gate/gate.ktap and build/gate/gate.json, and counts.
The last line is "N passed, N failed"; the exit status is non-zero when
anything failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from gate import ktap
from lib import results
from lib.common import BASES, REPO, SCRIPTS, Config, Failure, config, main_guard


@dataclass(frozen=True)
class Stage:
    name: str
    module: str  # run as "python3 -m MODULE ARGS"
    args: dict[str, tuple[str, ...]]  # per tier; a tier missing runs none
    after: str = ""  # the stage it needs done first (on the same base)
    result: str = ""  # its build/BASE/results/ name, if not its own name
    skip: str = ""  # why a tier that leaves it out does so
    only: str = ""  # the one base it runs on, if not every base
    why_only: str = ""  # why not on the other bases
    # per tier, the arguments on the bases other than UPSTREAM, where
    # they differ, and why
    backport: dict[str, tuple[str, ...]] = field(default_factory=dict)
    why_backport: str = ""
    # per tier, why it runs on UPSTREAM only there (every base otherwise)
    upstream_only: dict[str, str] = field(default_factory=dict)

    def runs_on(self, tier: str, base: str) -> bool:
        if self.only:
            return self.only == base
        return tier not in self.upstream_only or base == UPSTREAM

    def why_not_on(self, tier: str) -> str:
        return self.why_only or self.upstream_only.get(tier, "")


@dataclass(frozen=True)
class Job:
    """A stage on one base: what a worker runs."""
    stage: Stage
    base: str

    @property
    def key(self) -> str:
        return f"{self.stage.name}@{self.base}" if self.base else self.stage.name

    @property
    def after(self) -> str:
        return f"{self.stage.after}@{self.base}" if self.stage.after else ""


# The base the sets are sent upstream against: the stages that run on
# one base only run there.
UPSTREAM = next(name for name, base in BASES.items() if base.upstream)
ONE_BASE = (f"on {UPSTREAM} only, the base the sets are sent against: the "
            "series is the same code on both bases, and these guest runs "
            "are the gate's longest")
# The backport base's runs in make check: its guest kernels and the sound
# scenario fit a cold make check on CI's two cores (55 min in a fresh
# root, docs/figures.md); KUnit and the network guest runs do not.
BACKPORT_RUNS = (f"make check-full only on the backport base: make check runs "
                 f"KUnit and the network guest runs on {UPSTREAM} alone, to stay "
                 "in CI's cold budget; on this base it builds the guest "
                 "kernels for the sound scenario, builds the whole series "
                 "(gcc, sparse) and runs the static checks")

# In the order the workers take them, each the first one that is ready:
# the guest kernels and bisect first, beside each other; then KUnit and
# the guest runs, longest first, which are ready only when the guest
# kernels are there; the short static checks last, filling the gaps.
# In a warm make check of 2026-12-05 with bisect after the guest runs, its
# walk of 7.3's prefixes ended the gate alone for 250 s at about one
# CPU. The other long builds (kunit-debug) come on whichever worker is
# free. Each stage runs on every base (UPSTREAM first) unless it names
# one.
GUESTS = "guest-kernels"
STAGES = [
    Stage(GUESTS, "guest.kernel",
          {"check": ("--flavour", "patched,plain"),
           "full": ("--flavour", "patched,plain"),
           "debug": ("--flavour", "patched", "--variant", "debug")}),
    # The longest chain of builds, much of it serial (a make per prefix):
    # started at once, beside the guest kernels (cold) or the guest runs
    # (warm), so that it does not end the gate alone.
    Stage("bisect", "checks.bisect", {"check": ("--clang-whole",), "full": ()},
          backport={"check": ("--whole", "--no-clang")},
          why_backport=f"make check builds the whole series on the "
          f"backport base with gcc (and sparse, which {UPSTREAM}'s tree "
          f"refuses), each prefix on {UPSTREAM} (where the sets are sent "
          "and bisected; clang there on the base and the whole series); "
          "make check-full each prefix with both compilers on both"),
    # On the patched guest kernel, which has the suites.
    Stage("kunit", "checks.kunit", {"check": (), "full": ()}, after=GUESTS,
          upstream_only={"check": BACKPORT_RUNS}),
    Stage("reliability", "reliability.runs", {"check": ("--short",), "full": ()},
          after=GUESTS, only=UPSTREAM, why_only=ONE_BASE),
    Stage("e2e", "e2e.runner",
          {"check": ("--cycles", "20", "--steps", "40", "--no-raw"), "full": ()},
          after=GUESTS, upstream_only={"check": BACKPORT_RUNS}),
    # On both bases in make check too: the second subsystem end
    # to end, and the one guest run the backport base has there.
    Stage("sound", "e2e.sound", {"check": (), "full": ()}, after=GUESTS),
    Stage("userspace", "userspace.udev", {"check": ("--replugs", "10"), "full": ()},
          after=GUESTS, only=UPSTREAM, why_only=ONE_BASE),
    Stage("checkpatch", "checks.checkpatch", {"check": (), "full": ()}),
    Stage("patchwork", "checks.patchwork", {"check": (), "full": ()}),
    Stage("callsites", "checks.callsites", {"check": (), "full": ()}),
    # The rule the series adds for make coccicheck, on the base and the
    # patched tree: the committed report, its classification, the recall
    # on the drivers the series converts (checks/probe_counters.py).
    # make check scans the files the report and the series name (seconds);
    # make check-full every candidate file (minutes).
    Stage("probe-counters", "checks.probe_counters",
          {"check": ("--quick",), "full": ()}),
    # After KUnit and the guest kernels, whose objects its builds reuse.
    Stage("mutants", "mutants.mutate", {"full": ()}, after="kunit",
          skip="make check-full only: three guest kernel builds "
          "of mutated trees, and their runs, take longer than make check's "
          "budget leaves", only=UPSTREAM,
          why_only=f"on {UPSTREAM} only: each mutant is a rule of the "
          "contract broken in the shared code, the same on both bases"),
    Stage("harness-mutants", "mutants.harness", {"full": ()},
          skip="make check-full only: some eighty runs of the harness's tests",
          only=UPSTREAM, why_only="the harness is one, whichever the base"),
    Stage("kunit-debug", "checks.kunit", {"full": ("--variant", "debug")},
          skip="make check-full only: its cold build alone (KASAN, lockdep) "
          "takes a large part of make check's cold budget"),
    Stage("soak-debug", "e2e.runner",
          {"debug": ("--variant", "debug", "--scenarios", "soak")},
          after=GUESTS, result="e2e-debug-soak"),
    Stage("e2e-debug", "e2e.runner", {"debug": ("--variant", "debug")}, after=GUESTS),
    Stage("rel-debug", "reliability.runs", {"debug": ("--variant", "debug")},
          after=GUESTS, result="reliability-debug"),
]
SETUP = {"check": [("lib.deps", "harness", "tree", "build", "kunit", "checkpatch",
                    "callsites", "bisect", "e2e", "userspace"),
                   ("series.tree", "prepare")],
         "debug": [("lib.deps", "harness", "tree", "build", "e2e"),
                   ("series.tree", "prepare")]}
SETUP["full"] = SETUP["check"]
HARNESS = Stage("harness", "tests", {"check": (), "full": (), "debug": ()})


def jobs(tier: str, bases: list[str]) -> list[Job]:
    """The stages of @tier on @bases, in the order the workers take them:
    stage by stage, each on every base it runs on, UPSTREAM first (its
    bisect walks every prefix, the longest of the two). The other bases'
    guest kernels come after UPSTREAM's bisect: started first, they would
    hold back that walk, the longest chain of a cold run."""
    ordered = sorted(bases, key=lambda base: base != UPSTREAM)
    todo = [Job(stage, base) for stage in STAGES if tier in stage.args
            for base in ordered if stage.runs_on(tier, base)]
    walk = [job for job in todo if job.stage.name == "bisect" and job.base == UPSTREAM]
    if not walk:
        return todo
    later = [job for job in todo if job.stage.name == GUESTS and job.base != UPSTREAM]
    todo = [job for job in todo if job not in later]
    at = todo.index(walk[0]) + 1
    return todo[:at] + later + todo[at:]


@dataclass
class Outcome:
    job: Job
    code: int = 0
    seconds: float = 0.0
    verdict: ktap.StageVerdict = field(default_factory=lambda: ktap.StageVerdict(""))


class Gate:
    def __init__(self, cfg: Config, tier: str, bases: list[str] | None = None) -> None:
        self.cfg = cfg  # its build root: every base's build/BASE/ and build/gate/
        self.tier = tier
        self.bases = bases or list(BASES)
        self.started = time.time()
        self.print_lock = threading.Lock()
        self.setup_seconds = 0.0  # packages and the trees, before any stage
        self.env = dict(os.environ, PYTHONPATH=str(SCRIPTS),
                        BOARD_NUMBERS_TIER=tier, PYTHONUNBUFFERED="1")

    def say(self, line: str) -> None:
        with self.print_lock:
            print(line, flush=True)

    def arguments(self, job: Job) -> tuple[str, ...]:
        """@job's arguments in this tier: on a base other than UPSTREAM,
        the stage's backport arguments where it has them."""
        stage = job.stage
        if job.base and job.base != UPSTREAM and self.tier in stage.backport:
            self.say(f"==> {job.key}: {stage.why_backport}")
            return stage.backport[self.tier]
        return stage.args[self.tier]

    def run_stage(self, job: Job) -> Outcome:
        """Run @job, its output to its log and, prefixed, to ours."""
        stage = job.stage
        logs = self.cfg.build_root / (job.base or "gate") / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        args = self.arguments(job)
        # The harness, on no base, saves its record with the first base's.
        env = dict(self.env, KERNEL=job.base or self.bases[0])
        self.say(f"==> stage {job.key}: python3 -m {stage.module} {' '.join(args)}")
        began = time.monotonic()
        with open(logs / f"{stage.name}.log", "w", encoding="utf-8") as log_file:
            proc = subprocess.Popen([sys.executable, "-m", stage.module, *args],
                                    cwd=REPO, env=env, text=True,
                                    errors="replace", stdout=subprocess.PIPE,
                                    stderr=subprocess.STDOUT)
            assert proc.stdout is not None
            for line in proc.stdout:
                log_file.write(line)
                self.say(f"[{job.key}] {line.rstrip()}")
            code = proc.wait()
        outcome = Outcome(job, code, time.monotonic() - began)
        outcome.verdict = self.verdict(job, code, logs)
        self.say(f"==> stage {job.key} done in {outcome.seconds:.0f}s: "
                 f"{outcome.verdict.passed} passed, {outcome.verdict.failed} failed")
        return outcome

    def verdict(self, job: Job, code: int, logs: Path) -> ktap.StageVerdict:
        """@job's cases from the results it saved in this run; a stage
        that broke before saving, or failed with no failing case, gets a
        failing case that says so."""
        stage = job.stage
        verdict = ktap.StageVerdict(job.key, base=base_release(self.cfg, job.base))
        path = self.cfg.build_root / (job.base or "gate") / "results" / \
            f"{stage.result or stage.name}.json"
        log_path = logs / f"{stage.name}.log"
        if stage.module == "guest.kernel":
            # A build step: one case, whether it worked.
            verdict.rows = [("build", code == 0, "built" if code == 0 else
                             f"exit {code}, see {log_path}")]
            return verdict
        if stage is HARNESS:
            path = self.cfg.build_root / self.bases[0] / "results" / "harness.json"
        if path.is_file() and path.stat().st_mtime >= self.started:
            record = results.read(path)
            verdict.rows = [(r["name"], r["ok"], r["detail"]) for r in record["rows"]]
        if code != 0 and verdict.failed == 0:
            verdict.rows.append((f"{stage.name} exit status", False,
                                 f"exit {code} without a failing case; see "
                                 f"{log_path}"))
        elif not verdict.rows:
            verdict.rows.append((f"{stage.name} results", False,
                                 f"no results saved in {path}"))
        return verdict

    def worker(self, todo: list[Job], finished: dict[str, Outcome],
               ready: threading.Condition) -> None:
        """Run the first job of @todo whose predecessor is in @finished,
        until @todo is empty."""
        while True:
            with ready:
                while True:
                    if not todo:
                        return
                    job = next((j for j in todo if not j.after or j.after in finished),
                               None)
                    if job:
                        todo.remove(job)
                        break
                    ready.wait()
            try:
                outcome = self.run_stage(job)
            except Exception as err:  # noqa: BLE001 - the gate must go on and count it
                outcome = Outcome(job, 1, verdict=ktap.StageVerdict(
                    job.key, [(f"{job.stage.name} harness error", False, repr(err))]))
                self.say(f"==> stage {job.key} broke: {err!r}")
            with ready:
                finished[job.key] = outcome
                ready.notify_all()

    def schedule(self, todo: list[Job], workers: int = 2) -> dict[str, Outcome]:
        """Run the jobs of @todo on @workers workers; their outcomes."""
        finished: dict[str, Outcome] = {}
        ready = threading.Condition()
        threads = [threading.Thread(target=self.worker, args=(todo, finished, ready))
                   for _ in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return finished

    def setup(self) -> None:
        """Packages and the tree of every base."""
        began = time.monotonic()
        for base in self.bases:
            for step in SETUP[self.tier]:
                self.say(f"==> [{base}] {' '.join(step)}")
                code = subprocess.run([sys.executable, "-m", *step], cwd=REPO,
                                      env=dict(self.env, KERNEL=base),
                                      check=False).returncode
                if code != 0:
                    raise Failure(f"{step[0]} failed on {base}; nothing was tested\n"
                                  "0 passed, 1 failed")
        self.setup_seconds = time.monotonic() - began

    def run(self) -> list[Outcome]:
        self.setup()
        outcomes = [self.run_stage(Job(HARNESS, ""))]
        finished = self.schedule(jobs(self.tier, self.bases))
        for stage in STAGES:
            for base in self.bases:
                key = Job(stage, base).key
                if key in finished:
                    outcomes.append(finished[key])
                elif self.tier == "debug" or (stage.only and stage.only not in self.bases):
                    continue
                elif not stage.runs_on(self.tier, base) and self.tier in stage.args:
                    outcomes.append(Outcome(Job(stage, base), verdict=ktap.StageVerdict(
                        key, skip=stage.why_not_on(self.tier))))
                elif stage.skip and self.tier not in stage.args:
                    outcomes.append(Outcome(Job(stage, base), verdict=ktap.StageVerdict(
                        key, skip=stage.skip)))
        return outcomes


def ccache_counts() -> dict[str, int]:
    """ccache's hit and miss counters so far, and the objects it holds
    (zeros without ccache), so that the gate can say whether it ran warm
    or cold."""
    proc = subprocess.run(["ccache", "--print-stats"], capture_output=True,
                          text=True, check=False) if shutil.which("ccache") else None
    stats = dict(line.split("\t", 1) for line in (proc.stdout if proc else "").splitlines()
                 if "\t" in line)
    def count(key: str) -> int:
        return int(stats.get(key, "0") or 0)

    return {"hits": count("direct_cache_hit") + count("preprocessed_cache_hit"),
            "misses": count("cache_miss"), "files": count("files_in_cache")}


def base_release(cfg: Config, base: str) -> str:
    """The kernel release @base's tree (under @cfg's build root) was
    unpacked from (series.tree's state), "" for the harness."""
    if not base:
        return ""
    try:
        state = json.loads((cfg.build_root / base / "linux" / ".git" /
                            "board-numbers-state.json").read_text())
    except (OSError, ValueError):
        return base
    return str(state.get("version", base))


def table(outcomes: list[Outcome], setup: float) -> str:
    lines = ["stage               base        passed  failed   time",
             f"{'setup':19} {'':10} {'':7} {'':7} {setup:5.0f}s  (packages, trees)"]
    for o in outcomes:
        v = o.verdict
        name = o.job.stage.name
        if v.skip:
            lines.append(f"{name:19} {o.job.base or '-':10} {'-':>7} {'-':>7}  "
                         f"skipped: {v.skip}")
            continue
        lines.append(f"{name:19} {v.base or '-':10} {v.passed:7} {v.failed:7} "
                     f"{o.seconds:5.0f}s")
    return "\n".join(lines)


def series_commits(cfg: Config, bases: list[str]) -> dict[str, dict[str, str]]:
    """Each base's series commit and tree: which series the gate counted."""
    return {base: {"series": results.series_commit("series", cfg.build_root / base / "linux"),
                   "tree": results.series_commit("series^{tree}",
                                                 cfg.build_root / base / "linux")}
            for base in bases}


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tier", choices=["check", "full", "debug"],
                        default="check")
    parser.add_argument("--bases", default=",".join(BASES),
                        help="comma-separated bases (default: all of them)")
    args = parser.parse_args()
    bases = [b for b in args.bases.split(",") if b]
    unknown = [b for b in bases if b not in BASES]
    if unknown or not bases:
        raise Failure(f"unknown base(s) {unknown}; bases: {', '.join(BASES)}")
    start = time.monotonic()
    cfg = config()
    gate = Gate(cfg, args.tier, bases)
    before = ccache_counts()
    outcomes = gate.run()
    after = ccache_counts()
    compiled = {key: after[key] - before[key] for key in ("hits", "misses")}
    # A cold run starts from an empty cache (figures.title()).
    compiled["files_before"] = before["files"]
    own = cfg.build_root / "gate"
    own.mkdir(parents=True, exist_ok=True)
    ktap_path = own / "gate.ktap"
    ktap_path.write_text(ktap.document([o.verdict for o in outcomes]))
    passed = sum(o.verdict.passed for o in outcomes)
    failed = sum(o.verdict.failed for o in outcomes)
    total = time.monotonic() - start
    # The gate's own record, for make figures: which tier and bases, how
    # long each stage took and what it counted.
    (own / "gate.json").write_text(json.dumps({
        "stage": "gate", "gate_tier": args.tier, "bases": bases,
        "finished": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "seconds": round(total), "ccache": compiled,
        "setup_seconds": round(gate.setup_seconds),
        "passed": passed, "failed": failed,
        "series": series_commits(cfg, bases),
        # The repository's own commit: which gate counted this.
        "repository": subprocess.run(["git", "rev-parse", "--short=12", "HEAD"],
                                     cwd=REPO, capture_output=True, text=True,
                                     check=False).stdout.strip() or "unknown",
        "stages": [{"name": o.job.stage.name, "base": o.job.base,
                    "release": o.verdict.base, "seconds": round(o.seconds),
                    "passed": o.verdict.passed, "failed": o.verdict.failed,
                    "result": o.job.stage.result or o.job.stage.name,
                    "skip": o.verdict.skip} for o in outcomes]}, indent=1))
    print()
    print(table(outcomes, gate.setup_seconds))
    shown = ktap_path.relative_to(REPO) if ktap_path.is_relative_to(REPO) else ktap_path
    print(f"total time {total:.0f}s ({args.tier} tier, bases {', '.join(bases)}); "
          f"ccache {compiled['hits']} hits, {compiled['misses']} misses; KTAP: {shown}")
    log_lines = [f"{o.job.key}: {cfg.build_root / (o.job.base or 'gate')}/logs/"
                 f"{o.job.stage.name}.log" for o in outcomes if o.verdict.failed]
    if log_lines:
        print("logs of failed stages:\n  " + "\n  ".join(log_lines))
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    main_guard(main)
