# SPDX-License-Identifier: GPL-2.0
"""The reference model of ALSA's rule for per-card options.

ALSA's PCI drivers take a card's options (index=, id=, enable= and their
own) from their module parameter arrays at one index, the "dev" of the
probe. With the series (snd_devm_dev_index(), the rule hda_intel already
keeps with its probed_devs bitmap):

- a card probes: it takes the lowest index that no present card of the
  driver holds and that is not passed over;
- enable= is off at that index: the card is not probed, and the index
  is passed over by every later card until the driver is unloaded;
- the options follow the index: a card gets index[dev] as its card
  number (the lowest free one when not given) and id[dev] as its id (the
  driver's own when not given);
- a card goes away, or its probe fails: its index is free again;
- every index taken (SNDRV_CARDS present): no card.

Unlike the network drivers' board numbers, no index has an owner: the
options at an index apply to whichever card takes it. ALSA's index= pins
a card number, and a re-plugged card is meant to get it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import count

# CONFIG_SND_MAX_CARDS with CONFIG_SND_DYNAMIC_MINORS, as Debian builds.
SNDRV_CARDS = 32


@dataclass(frozen=True)
class Options:
    """The values given on the command line; entries not given are the
    driver's defaults (index -1, its own id, enabled)."""
    index: tuple[int, ...] = ()
    ids: tuple[str, ...] = ()
    enable: tuple[bool, ...] = ()

    def card_index(self, dev: int) -> int:
        return self.index[dev] if dev < len(self.index) else -1

    def card_id(self, dev: int) -> str | None:
        return self.ids[dev] if dev < len(self.ids) else None

    def enabled(self, dev: int) -> bool:
        return self.enable[dev] if dev < len(self.enable) else True

    def cmdline(self, module: str) -> list[str]:
        """The boot parameters of a built-in driver @module."""
        params = []
        if self.index:
            params.append(f"{module}.index={','.join(map(str, self.index))}")
        if self.ids:
            params.append(f"{module}.id={','.join(self.ids)}")
        if self.enable:
            params.append(f"{module}.enable={','.join(str(int(e)) for e in self.enable)}")
        return params


@dataclass(frozen=True)
class Card:
    """A card as the guest lists it (/sys/class/sound/cardN)."""
    number: int
    id: str
    pci: str


@dataclass(frozen=True)
class Expected:
    dev: int  # the index the card takes
    number: int | None  # its card number; None: no card
    id: str | None  # the id given for it; None: the driver's own
    why: str = ""  # why there is no card


@dataclass
class CardModel:
    options: Options
    slots: int = SNDRV_CARDS
    held: dict[str, int] = field(default_factory=dict)  # device: index
    cards: dict[str, int] = field(default_factory=dict)  # device: card number
    skipped: set[int] = field(default_factory=set)

    def add(self, device: str) -> Expected:
        """A card hot-added as @device: what it must get."""
        dev = next(i for i in count() if i not in self.held.values()
                   and i not in self.skipped)
        if dev >= self.slots:
            return Expected(dev, None, None, f"all {self.slots} indexes held")
        if not self.options.enabled(dev):
            self.skipped.add(dev)
            return Expected(dev, None, None, f"enable is off at index {dev}")
        number = self.options.card_index(dev)
        if number < 0:
            number = next(n for n in count() if n not in self.cards.values())
        elif number in self.cards.values():
            # snd_card_new() fails: the probe gives the index back.
            return Expected(dev, None, None, f"card {number} is taken")
        self.held[device] = dev
        self.cards[device] = number
        return Expected(dev, number, self.options.card_id(dev))

    def remove(self, device: str) -> None:
        self.held.pop(device, None)
        self.cards.pop(device, None)


# The guest's listing: one line per card (e2e/sound.py's LIST).
CARD_LINE = re.compile(r"^CARD (\d+) (\S+) (\S+)$")


def parse_cards(lines: list[str]) -> list[Card]:
    """The cards of the listing's @lines."""
    cards = []
    for line in lines:
        m = CARD_LINE.match(line.strip())
        if m:
            cards.append(Card(int(m.group(1)), m.group(2), m.group(3)))
    return cards


def violation(expected: Expected, pci: str, cards: list[Card],
              model: CardModel, given_ids: tuple[str, ...]) -> str:
    """What in @cards, listed after the card at @pci was added, breaks
    @expected and the cards @model holds; "" when nothing does."""
    mine = [c for c in cards if c.pci == pci]
    if expected.number is None:
        if mine:
            return (f"card {mine[0].number} ({mine[0].id}) appeared, model: none "
                    f"({expected.why})")
    elif not mine:
        return f"no card appeared, model: card {expected.number} (index {expected.dev})"
    elif mine[0].number != expected.number:
        return f"card {mine[0].number}, model: card {expected.number} (index {expected.dev})"
    elif expected.id is not None and mine[0].id != expected.id:
        return f"id {mine[0].id}, model: {expected.id} (index {expected.dev})"
    elif expected.id is None and mine[0].id in given_ids:
        return f"id {mine[0].id}, given for another index; model: the driver's own"
    listed = sorted(c.number for c in cards)
    held = sorted(model.cards.values())
    if listed != held:
        return f"cards {listed} listed, model: {held}"
    return ""
