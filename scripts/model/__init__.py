# SPDX-License-Identifier: GPL-2.0
"""What a kernel is judged by, apart from how any run drives a guest: the
reference model of board numbers (model.py), the check of one probe
against it (check.py), and a run's tally with the verdict on the patched
kernel and its plain-kernel control (verdict.py). e2e, the reliability
runs, the userspace path and the harness's tests share them."""
