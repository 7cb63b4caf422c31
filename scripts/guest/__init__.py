"""The QEMU guest: its kernel, initramfs and agent, the QMP client, the
serial console, and booting it for a run."""
