# SPDX-License-Identifier: GPL-2.0
"""The order of the gate's stages (gate.gate.Job.after, Gate.worker): a
guest run is not started before its base's guest kernels are done,
whatever its place in the list and however long the kernels take.

test_gate_workers.py times fake stages; here the fake guest kernels
hold their worker until the other worker has run out of stages that
need no kernels, so a worker that took a guest run early would do so
in every run, not only on a slow machine.
"""

from __future__ import annotations

import threading
import unittest
from typing import Callable
from unittest import mock

from gate import gate as gate_run
from gate import ktap
from lib.common import config

STAGES = {stage.name: stage for stage in gate_run.STAGES}
WAIT = 10.0  # seconds before a test that hangs is failed instead


def done(job: gate_run.Job) -> gate_run.Outcome:
    return gate_run.Outcome(job, verdict=ktap.StageVerdict(job.key))


def in_thread(test: unittest.TestCase, target: Callable[[], object]) -> None:
    """Run @target in a thread of its own, failing @test if it never ends
    (a worker waiting for a stage that can never be done)."""
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(WAIT)
    test.assertFalse(thread.is_alive(), "the scheduler never finished")


class AfterTest(unittest.TestCase):
    def test_job_after_names_the_kernels_of_its_base(self) -> None:
        """A guest run's predecessor is the guest-kernel job of its own
        base; a stage that needs nothing has none."""
        self.assertEqual(gate_run.Job(STAGES["e2e"], "7.3").after, f"{gate_run.GUESTS}@7.3")
        self.assertEqual(gate_run.Job(STAGES["e2e"], "6.12").after, f"{gate_run.GUESTS}@6.12")
        self.assertEqual(gate_run.Job(STAGES["reliability"], "7.3").after,
                         f"{gate_run.GUESTS}@7.3")
        self.assertEqual(gate_run.Job(STAGES["mutants"], "7.3").after, "kunit@7.3")
        self.assertEqual(gate_run.Job(STAGES["checkpatch"], "7.3").after, "")
        self.assertEqual(gate_run.Job(STAGES[gate_run.GUESTS], "7.3").after, "")

    def test_every_guest_run_waits_for_guest_kernels(self) -> None:
        """Every stage that runs guests (e2e, reliability, userspace, in
        every tier) names the guest kernels as its predecessor."""
        for stage in gate_run.STAGES:
            if stage.module.split(".")[0] in ("e2e", "reliability", "userspace"):
                with self.subTest(stage=stage.name):
                    self.assertEqual(stage.after, gate_run.GUESTS)

    def test_one_worker_runs_the_kernels_first(self) -> None:
        """With the guest runs listed before the guest kernels, one worker
        runs the kernels first and the guest runs after them, in list
        order: a job whose predecessor is not finished is not ready."""
        gate = gate_run.Gate(config("7.3", {}), "check", ["7.3"])
        todo = [gate_run.Job(STAGES["e2e"], "7.3"), gate_run.Job(STAGES["reliability"], "7.3"),
                gate_run.Job(STAGES["checkpatch"], "7.3"), gate_run.Job(STAGES[gate_run.GUESTS], "7.3")]
        order: list[str] = []

        def fake(job: gate_run.Job) -> gate_run.Outcome:
            order.append(job.key)
            return done(job)

        finished: dict[str, gate_run.Outcome] = {}
        with mock.patch.object(gate, "run_stage", fake):
            in_thread(self, lambda: gate.worker(todo, finished, threading.Condition()))
        self.assertEqual(order, ["checkpatch@7.3", f"{gate_run.GUESTS}@7.3", "e2e@7.3",
                                 "reliability@7.3"])
        self.assertEqual(todo, [])

    def test_kernels_of_another_base_do_not_count(self) -> None:
        """The guest kernels of 6.12 being done does not release a guest
        run on 7.3."""
        gate = gate_run.Gate(config("7.3", {}), "check", ["6.12", "7.3"])
        kernels_612 = gate_run.Job(STAGES[gate_run.GUESTS], "6.12")
        finished = {kernels_612.key: done(kernels_612)}
        todo = [gate_run.Job(STAGES["e2e"], "7.3"), gate_run.Job(STAGES[gate_run.GUESTS], "7.3")]
        order: list[str] = []

        def fake(job: gate_run.Job) -> gate_run.Outcome:
            order.append(job.key)
            return done(job)

        with mock.patch.object(gate, "run_stage", fake):
            in_thread(self, lambda: gate.worker(todo, finished, threading.Condition()))
        self.assertEqual(order, [f"{gate_run.GUESTS}@7.3", "e2e@7.3"])

    def test_free_worker_waits_for_the_kernels(self) -> None:
        """Two workers on one base: while one builds the guest kernels
        (held here until every stage that needs no kernels is done), the
        other runs those stages and then waits: no guest run starts
        before the kernels are finished."""
        gate = gate_run.Gate(config("7.3", {}), "check", ["7.3"])
        todo = gate_run.jobs("check", ["7.3"])
        independent = [job.key for job in todo
                       if not job.after and job.stage.name != gate_run.GUESTS]
        self.assertGreaterEqual(len(independent), 2)
        guest_runs = [job.key for job in todo if job.after]
        self.assertGreaterEqual(len(guest_runs), 2)
        lock = threading.Lock()
        others_done = threading.Event()
        kernels_built = threading.Event()
        ran: list[str] = []
        early: list[str] = []

        def fake(job: gate_run.Job) -> gate_run.Outcome:
            if job.stage.name == gate_run.GUESTS:
                # Until the other worker has nothing left that needs no
                # kernels (or WAIT, should it never get there).
                others_done.wait(WAIT / 2)
                kernels_built.set()
                return done(job)
            with lock:
                if job.after and not kernels_built.is_set():
                    early.append(job.key)
                ran.append(job.key)
                if set(independent) <= set(ran):
                    others_done.set()
            return done(job)

        finished: dict[str, gate_run.Outcome] = {}
        with mock.patch.object(gate, "run_stage", fake):
            in_thread(self, lambda: finished.update(gate.schedule(todo)))
        self.assertEqual(early, [], "guest runs started before the guest kernels")
        self.assertEqual(sorted(finished), sorted(independent + guest_runs +
                                                  [f"{gate_run.GUESTS}@7.3"]))


if __name__ == "__main__":
    unittest.main()
