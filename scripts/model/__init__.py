# SPDX-License-Identifier: GPL-2.0
"""The reference model of board numbers and the check of one probe
against it: what e2e, the reliability runs and their tests judge a kernel
by, apart from how any of them drives a guest."""
