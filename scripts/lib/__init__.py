# SPDX-License-Identifier: GPL-2.0
"""What every step of the pipeline shares: paths, commands, packages, results."""
