# SPDX-License-Identifier: GPL-2.0
"""The QEMU guest: its kernel, initramfs and agent, the QMP client, the
serial console, and booting it for a run."""
