# SPDX-License-Identifier: GPL-2.0
"""The gate: every stage in order, the stage table, KTAP and the
"N passed, N failed" line."""
