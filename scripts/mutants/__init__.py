# SPDX-License-Identifier: GPL-2.0
"""make mutants: break the series on purpose and check that a test sees it."""
