# SPDX-License-Identifier: GPL-2.0
"""The QEMU guest: its kernel, initramfs and agent, the QMP client, the
serial console, booting it for a run and ending it (session.py), and
hot-plugging a device into it (hotplug.py)."""
