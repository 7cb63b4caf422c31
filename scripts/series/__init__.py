# SPDX-License-Identifier: GPL-2.0
"""The series: the kernel tree it applies to, and the checks on the patches
themselves (checkpatch, every prefix built, KUnit, the cover letter)."""
