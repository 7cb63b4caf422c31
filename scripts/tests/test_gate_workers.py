# SPDX-License-Identifier: GPL-2.0
"""The gate's two workers (gate.gate.Gate.worker): every stage runs once,
two at a time, a guest run only after the guest kernels, and a stage
that breaks does not stop the others."""

from __future__ import annotations

import threading
import time
import unittest

from gate import gate as gate_run
from gate import ktap
from lib.common import config


class FakeStages(gate_run.Gate):
    """A gate whose stages only note when they start and end, after a
    sleep (the guest kernels' longer); the stage @broken raises."""

    def __init__(self, broken: str) -> None:
        super().__init__(config("7.3", {}), "check", ["6.12", "7.3"])
        self.broken = broken
        self.events: list[tuple[str, str, float]] = []
        self.lock = threading.Lock()

    def run_stage(self, job: gate_run.Job) -> gate_run.Outcome:
        with self.lock:
            self.events.append(("start", job.key, time.monotonic()))
        time.sleep(0.02 if job.stage.name != gate_run.GUESTS else 0.1)
        if job.key == self.broken:
            raise RuntimeError("broken on purpose")
        with self.lock:
            self.events.append(("end", job.key, time.monotonic()))
        return gate_run.Outcome(job, verdict=ktap.StageVerdict(job.key))


class NoSetup(FakeStages):
    """FakeStages that installs nothing and prepares no tree."""

    def setup(self) -> None:
        pass


class QuietGate(gate_run.Gate):
    """A gate that says nothing."""

    def say(self, line: str) -> None:
        pass


class WorkersTest(unittest.TestCase):
    def schedule(self, broken: str = "") -> tuple[list[tuple[str, str, float]],
                                                   dict[str, gate_run.Outcome]]:
        gate = FakeStages(broken)
        todo = gate_run.jobs("check", ["6.12", "7.3"])
        finished: dict[str, gate_run.Outcome] = {}
        # In a thread of its own, so that a worker that never finishes
        # fails the test instead of hanging it.
        scheduler = threading.Thread(target=lambda: finished.update(gate.schedule(todo)))
        scheduler.start()
        scheduler.join(timeout=10)
        self.assertFalse(scheduler.is_alive(), "a worker never finished")
        return gate.events, finished

    def test_every_stage_once_guests_after_kernels(self) -> None:
        """Every stage runs once on each base it runs on, a guest run
        only after that base's guest kernels, stages named for one base
        only there."""
        events, finished = self.schedule()
        started = [name for kind, name, _ in events if kind == "start"]
        wanted = [j.key for j in gate_run.jobs("check", ["6.12", "7.3"])]
        self.assertEqual(sorted(started), sorted(wanted))
        self.assertEqual(set(finished), set(wanted))
        for base in (gate_run.UPSTREAM,):
            self.assertIn(f"kunit@{base}", wanted)
            self.assertIn(f"e2e@{base}", wanted)
            kernels_done = next(t for kind, name, t in events
                                if kind == "end" and name == f"{gate_run.GUESTS}@{base}")
            for job in gate_run.jobs("check", [base]):
                if job.after:
                    began = next(t for kind, name, t in events
                                 if kind == "start" and name == job.key)
                    self.assertGreaterEqual(began, kernels_done, job.key)
        self.assertIn(f"userspace@{gate_run.UPSTREAM}", wanted)
        self.assertEqual([k for k in wanted if k.startswith("userspace@")],
                         [f"userspace@{gate_run.UPSTREAM}"])
        # One worker starts on the guest kernels, the other on bisect's
        # walk of UPSTREAM's prefixes.
        self.assertEqual(started[:2], [f"{gate_run.GUESTS}@7.3",
                                       f"bisect@{gate_run.UPSTREAM}"])

    def test_guest_runs_before_the_builds_left(self) -> None:
        """Once the guest kernels are there, the free workers take the
        guest runs before the static checks still waiting (the STAGES
        order)."""
        events, _ = self.schedule()
        kernels_done = next(t for kind, name, t in events
                            if kind == "end" and name == f"{gate_run.GUESTS}@7.3")
        # The builds (bisect, the backport's guest kernels) may still be
        # waiting for a worker; the static checks come after the guest runs.
        after = [name for kind, name, t in events
                 if kind == "start" and t >= kernels_done
                 and not name.startswith(("bisect@", f"{gate_run.GUESTS}@"))]
        self.assertEqual(after[0], "kunit@7.3")
        guest_runs = [f"{n}@7.3" for n in ("kunit", "reliability", "e2e", "sound", "userspace")]
        backport_runs = {job.key for job in gate_run.jobs("check", ["6.12"])
                         if job.stage.after == gate_run.GUESTS}
        others = [name for name in after
                  if name not in guest_runs and name not in backport_runs]
        self.assertLess(max(after.index(name) for name in guest_runs),
                        min(after.index(name) for name in others))

    def test_a_broken_stage_fails_and_the_rest_run(self) -> None:
        _, finished = self.schedule(broken="kunit@7.3")
        self.assertEqual(finished["kunit@7.3"].verdict.failed, 1)
        self.assertEqual(finished["checkpatch@7.3"].verdict.failed, 0)
        self.assertIn("bisect@7.3", finished)
        self.assertIn("e2e@7.3", finished)

    def test_left_out_stages_reported_as_skipped(self) -> None:
        """Gate.run() lists each stage a base or the tier leaves out as
        skipped, with its reason, and never one that ran."""
        gate = NoSetup("")
        outcomes = {o.job.key: o.verdict for o in gate.run()}
        self.assertIn("cold budget", outcomes["e2e@6.12"].skip)
        self.assertIn("on 7.3 only", outcomes["userspace@6.12"].skip)
        self.assertIn("check-full only", outcomes["kunit-debug@7.3"].skip)
        self.assertEqual(outcomes["e2e@7.3"].skip, "")
        self.assertEqual(outcomes["checkpatch@6.12"].skip, "")

    def test_broken_guest_kernels_release_the_guest_runs(self) -> None:
        """A guest-kernel build that breaks still counts as done, so the
        guest runs are started (and fail on their own) rather than hang."""
        _, finished = self.schedule(broken=f"{gate_run.GUESTS}@{gate_run.UPSTREAM}")
        self.assertIn(f"reliability@{gate_run.UPSTREAM}", finished)


class ArgumentsTest(unittest.TestCase):
    def test_backport_guest_runs_in_full_only(self) -> None:
        """make check runs KUnit and e2e on UPSTREAM only; check-full on
        both bases; the guest kernels, the sound scenario, the static
        checks and bisect run on both in either tier."""
        check = {j.key for j in gate_run.jobs("check", ["6.12", "7.3"])}
        full = {j.key for j in gate_run.jobs("full", ["6.12", "7.3"])}
        for name in ("kunit", "e2e"):
            self.assertNotIn(f"{name}@6.12", check)
            self.assertIn(f"{name}@7.3", check)
            self.assertIn(f"{name}@6.12", full)
        for name in ("checkpatch", "patchwork", "callsites", "bisect",
                     gate_run.GUESTS, "sound"):
            self.assertIn(f"{name}@6.12", check)
        stage = next(s for s in gate_run.STAGES if s.name == "kunit")
        self.assertIn("cold budget", stage.why_not_on("check"))

    def test_bisect_walks_prefixes_on_upstream_only_in_check(self) -> None:
        """make check builds the whole series on the backport base and
        walks every prefix on UPSTREAM; check-full walks both."""
        bisect = next(s for s in gate_run.STAGES if s.name == "bisect")
        backport = next(b for b in ("6.12", "7.3") if b != gate_run.UPSTREAM)
        check = QuietGate(config("7.3", {}), "check", ["6.12", "7.3"])
        full = QuietGate(config("7.3", {}), "full", ["6.12", "7.3"])
        self.assertEqual(check.arguments(gate_run.Job(bisect, backport)),
                         ("--whole", "--no-clang"))
        self.assertEqual(check.arguments(gate_run.Job(bisect, gate_run.UPSTREAM)),
                         ("--clang-whole",))
        self.assertEqual(full.arguments(gate_run.Job(bisect, gate_run.UPSTREAM)), ())
        self.assertEqual(full.arguments(gate_run.Job(bisect, backport)), ())
        e2e = next(s for s in gate_run.STAGES if s.name == "e2e")
        self.assertEqual(check.arguments(gate_run.Job(e2e, backport)),
                         e2e.args["check"])


if __name__ == "__main__":
    unittest.main()
