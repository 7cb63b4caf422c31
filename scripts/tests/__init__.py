# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the harness itself: no QEMU, no kernel build, seconds.

Run with "make harness" or "python3 -m tests" (PYTHONPATH=scripts); the
gate runs them first. Recorded inputs (console logs, QMP exchanges,
checkpatch and build output) are in test_data/, as kunit_tool_test.py
keeps its own.
"""
