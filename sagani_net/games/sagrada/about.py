"""Sagrada's title and table options, apart from its rules (:class:`sagani_net.game.About`)."""

from __future__ import annotations

from sagani_net.game import About, Option

DEFAULT_DIFFICULTY = 3

ABOUT = About(
    name="sagrada",
    title="Sagrada",
    options=(
        Option("players", 2, (1, 2, 3, 4), "how many play; 1 is the solo game"),
        Option("difficulty", DEFAULT_DIFFICULTY, (1, 2, 3, 4, 5),
               "solo: tool cards in play (1 is hardest)"),
        Option("patterns", None, (),
               "window patterns of your own: a list of them (protocol/games/sagrada.md)"),
        Option("pattern_set", "all", ("all", "custom"),
               "all: the published patterns and yours; custom: yours only"),
    ),
)
