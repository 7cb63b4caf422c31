# SPDX-License-Identifier: GPL-2.0
"""End-to-end hot-plug runs: scenarios, the reference model, the check of
every probe against it, the runner and the plot."""
