# SPDX-License-Identifier: GPL-2.0
"""The userspace path: hot-plugged NICs configured by Debian's udev from
.link files or a rule running ethtool, with no module parameter (the
files the guest gets live here too)."""
