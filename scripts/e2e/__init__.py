# SPDX-License-Identifier: GPL-2.0
"""End-to-end hot-plug runs: scenarios, the runner and the plot; the
reference model and the check of every probe against it are model/'s."""
