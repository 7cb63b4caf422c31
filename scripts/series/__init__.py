# SPDX-License-Identifier: GPL-2.0
"""The series' kernel tree: build/BASE/linux made from the packaged source
with patches/BASE/ applied (make tree), and its commits written back to
patches/BASE/ (make export)."""
