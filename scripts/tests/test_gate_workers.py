"""The gate's two workers (gate.run.Gate.worker): every stage runs once,
two at a time, a guest run only after the guest kernels, and a stage
that breaks does not stop the others."""

from __future__ import annotations

import threading
import time
import unittest

from gate import ktap, run


class WorkersTest(unittest.TestCase):
    def schedule(self, broken: str = "") -> tuple[list[tuple[str, str, float]],
                                                   dict[str, run.Outcome]]:
        gate = run.Gate("check")
        events: list[tuple[str, str, float]] = []
        lock = threading.Lock()

        def fake(stage: run.Stage) -> run.Outcome:
            with lock:
                events.append(("start", stage.name, time.monotonic()))
            time.sleep(0.05 if stage.name != run.GUESTS else 0.15)
            if stage.name == broken:
                raise RuntimeError("broken on purpose")
            with lock:
                events.append(("end", stage.name, time.monotonic()))
            return run.Outcome(stage, verdict=ktap.StageVerdict(stage.name))

        gate.run_stage = fake  # type: ignore[method-assign]
        todo = [s for s in run.STAGES if "check" in s.args]
        finished: dict[str, run.Outcome] = {}
        # In a thread of its own, so that a worker that never finishes
        # fails the test instead of hanging it.
        scheduler = threading.Thread(target=lambda: finished.update(gate.schedule(todo)))
        scheduler.start()
        scheduler.join(timeout=10)
        self.assertFalse(scheduler.is_alive(), "a worker never finished")
        return events, finished

    def test_every_stage_once_guests_after_kernels(self) -> None:
        events, finished = self.schedule()
        started = [name for kind, name, _ in events if kind == "start"]
        wanted = [s.name for s in run.STAGES if "check" in s.args]
        self.assertEqual(sorted(started), sorted(wanted))
        self.assertEqual(set(finished), set(wanted))
        kernels_done = next(t for kind, name, t in events
                            if kind == "end" and name == run.GUESTS)
        for stage in run.STAGES:
            if stage.after and "check" in stage.args:
                began = next(t for kind, name, t in events
                             if kind == "start" and name == stage.name)
                self.assertGreaterEqual(began, kernels_done, stage.name)
        # The other worker did not wait for the guest kernels.
        self.assertEqual(started[:2], [run.GUESTS, "checkpatch"])

    def test_a_broken_stage_fails_and_the_rest_run(self) -> None:
        _, finished = self.schedule(broken="kunit")
        self.assertEqual(finished["kunit"].verdict.failed, 1)
        self.assertIn("bisect", finished)
        self.assertIn("e2e", finished)

    def test_broken_guest_kernels_release_the_guest_runs(self) -> None:
        """A guest-kernel build that breaks still counts as done, so the
        guest runs are started (and fail on their own) rather than hang."""
        _, finished = self.schedule(broken=run.GUESTS)
        self.assertIn("reliability", finished)


if __name__ == "__main__":
    unittest.main()
