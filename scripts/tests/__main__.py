# SPDX-License-Identifier: GPL-2.0
"""Run the harness's unit tests: one line per test, the gate's count.

  python3 -m tests [-k PATTERN]

Discovers test_*.py beside this file with unittest, prints "harness:
PASS|FAIL name" per test and "harness: N passed, M failed", and saves
the cases as the stage "harness" in build/BASE/results/ (lib/results.py). A
skipped test counts as failed, with the reason: the harness has no
optional tests.
"""

from __future__ import annotations

import argparse
import sys
import unittest
from pathlib import Path
from types import TracebackType
from typing import TextIO, Union

from lib import results
from lib.common import Failure, config, main_guard

HERE = Path(__file__).resolve().parent

# What unittest hands a result about a failure or an error: sys.exc_info().
ExcInfo = Union[tuple[type[BaseException], BaseException, TracebackType],
                tuple[None, None, None]]


def first_line(err: ExcInfo, failure: type[BaseException] | None = None) -> str:
    """The first line of @err's message, after its type unless it is a
    @failure (an assertion of the test's); a bare assert has no message."""
    exc = err[1]
    if exc is None:
        return "no exception"
    text = (str(exc) if failure and isinstance(exc, failure)
            else f"{type(exc).__name__}: {exc}")
    return (text.splitlines() or [type(exc).__name__])[0][:200]


class Recorder(unittest.TextTestResult):
    """A result that also keeps (name, passed, detail) per test."""

    def __init__(self, stream: TextIO, descriptions: bool, verbosity: int) -> None:
        super().__init__(stream, descriptions, verbosity)
        self.rows: list[results.Row] = []

    def _name(self, test: unittest.TestCase) -> str:
        return test.id().removeprefix("tests.")

    def addSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802
        super().addSuccess(test)
        self.rows.append((self._name(test), True, "ok"))

    def addFailure(self, test: unittest.TestCase, err: ExcInfo) -> None:  # noqa: N802
        super().addFailure(test, err)
        self.rows.append((self._name(test), False, first_line(err, test.failureException)))

    def addError(self, test: unittest.TestCase, err: ExcInfo) -> None:  # noqa: N802
        super().addError(test, err)
        self.rows.append((self._name(test), False, first_line(err)))

    def addSubTest(self, test: unittest.TestCase, subtest: unittest.TestCase,  # noqa: N802
                   err: ExcInfo | None) -> None:
        # A test with a failing subTest() gets no addSuccess/addFailure of
        # its own: without this row it would vanish from the count.
        super().addSubTest(test, subtest, err)
        if err is not None:
            self.rows.append((self._name(subtest), False,
                              first_line(err, test.failureException)))

    # The harness has no optional tests: a test that did not run, or whose
    # outcome was declared beforehand, means something is missing or
    # broken, so each counts as failed, with what happened as the detail.
    def addSkip(self, test: unittest.TestCase, reason: str) -> None:  # noqa: N802
        super().addSkip(test, reason)
        self.rows.append((self._name(test), False, f"skipped: {reason}".splitlines()[0][:200]))

    def addExpectedFailure(self, test: unittest.TestCase,  # noqa: N802
                           err: ExcInfo) -> None:
        super().addExpectedFailure(test, err)
        self.rows.append((self._name(test), False,
                          "expected failure: " + first_line(err)[:180]))

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802
        super().addUnexpectedSuccess(test)
        self.rows.append((self._name(test), False,
                          "unexpected success of a test marked expectedFailure"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-k", dest="patterns", action="append",
                        help="only tests whose name contains PATTERN")
    args = parser.parse_args()
    cfg = config()
    loader = unittest.TestLoader()
    if args.patterns:
        loader.testNamePatterns = [f"*{p}*" for p in args.patterns]
    suite = loader.discover(str(HERE), pattern="test_*.py",
                            top_level_dir=str(HERE.parent))
    runner = unittest.TextTestRunner(stream=sys.stdout, verbosity=0,
                                     resultclass=Recorder)
    outcome = runner.run(suite)
    assert isinstance(outcome, Recorder)
    if not outcome.rows:
        raise Failure("no harness test ran")
    results.save(cfg, "harness", outcome.rows)
    return results.report("harness", outcome.rows, 60)


if __name__ == "__main__":
    main_guard(main)
