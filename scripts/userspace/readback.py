# SPDX-License-Identifier: GPL-2.0
"""What a hot-added NIC reads back after udev: scripts/userspace/nic-readback's
lines, parsed.

nic-readback prints, each line tagged "NICRB SECTION", the interface's
name, the .link file udev applied (ID_NET_LINK_FILE) and the output of
Debian's ethtool -g, -c, -a, plain ethtool and the rx-checksumming line of
ethtool -k. parse() turns them into fields the run compares with what
the settings ask for:

  tx, rx          ethtool -g, "Current hardware settings"
  rx_usecs        ethtool -c
  rx_pause, tx_pause  ethtool -a
  autoneg, speed, duplex, advertised  ethtool (advertised: the link
                  modes, space-separated, in ethtool's order)
  rx_csum         ethtool -k, rx-checksumming
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

TAG = re.compile(r"NICRB (\S+) ?(.*)$")
# ethtool's "Key:  value" lines, in the sections that have them.
KEYS = {
    ("ethtool-c", "rx-usecs"): "rx_usecs",
    ("ethtool-a", "RX"): "rx_pause",
    ("ethtool-a", "TX"): "tx_pause",
    ("ethtool", "Auto-negotiation"): "autoneg",
    ("ethtool", "Speed"): "speed",
    ("ethtool", "Duplex"): "duplex",
    ("ethtool", "Advertised link modes"): "advertised",
    ("ethtool-k", "rx-checksumming"): "rx_csum",
}


@dataclass
class Readback:
    name: str = ""
    link_file: str = ""
    fields: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def parse(lines: list[str]) -> Readback:
    """The readback in console @lines; lines without the tag (the kernel's
    messages among them) are skipped."""
    out = Readback()
    current = False  # in ethtool -g's "Current hardware settings"
    last = ""  # the field a continuation line adds to
    for line in lines:
        m = TAG.search(line)
        if not m:
            continue
        section, text = m.group(1), m.group(2)
        if section == "error:":
            out.errors.append(text)
        elif section == "name":
            out.name = text.strip()
        elif section == "link_file":
            out.link_file = text.strip()
        elif section == "ethtool-g":
            if text.strip().endswith("settings:"):
                current = text.strip() == "Current hardware settings:"
            key, _, value = text.partition(":")
            if current and key.strip() in ("RX", "TX"):
                out.fields[key.strip().lower()] = value.strip()
        elif ":" in text:
            key, _, value = text.partition(":")
            last = KEYS.get((section, key.strip()), "")
            if last:
                out.fields[last] = value.strip()
        elif last == "advertised" and section == "ethtool" and text.strip():
            out.fields[last] = f"{out.fields[last]} {text.strip()}"
        else:
            last = ""
    if "advertised" in out.fields:
        out.fields["advertised"] = " ".join(out.fields["advertised"].split())
    return out


def mismatches(got: Readback, want: dict[str, str]) -> list[str]:
    """"field=read (want W)" for every field of @want that @got lacks or
    reads otherwise."""
    return [f"{key}={got.fields.get(key, 'missing')} (want {value})"
            for key, value in want.items() if got.fields.get(key) != value]
