"""Sagani's title and table options, apart from its rules (:class:`sagani_net.game.About`)."""

from __future__ import annotations

from sagani_net.game import About, Option

MODES = ("multi", "solo", "solo-advanced")

ABOUT = About(
    name="sagani",
    title="Sagani",
    options=(
        Option("players", 2, (1, 2, 3, 4),
               "how many play: 2-4 (multi), 1 (a solo mode; the default with one)"),
        Option("mode", "multi", MODES,
               "multi (2-4 players), solo or solo-advanced (1 player; 1 player alone: solo)"),
    ),
)
