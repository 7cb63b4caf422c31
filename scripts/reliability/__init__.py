# SPDX-License-Identifier: GPL-2.0
"""The reliability runs: failure paths driven on purpose in the guest
(fault injection, async probing, surprise removal, bad parameters, loops)."""
