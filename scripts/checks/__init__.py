# SPDX-License-Identifier: GPL-2.0
"""The checks on the series' patches and the tree they make: checkpatch,
netdev's patchwork checks, the call sites (Coccinelle), every prefix
built (bisect) and the KUnit cases; each is a stage of the gate."""
