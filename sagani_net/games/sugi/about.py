"""Sugi's title and table options, apart from its rules (:class:`sagani_net.game.About`)."""

from __future__ import annotations

from sagani_net.game import About, Option

#: Our edition's rule sets: 1 is S1-S16; 2 adds the Temple's call with two samurai home (S17);
#: 3 calls from round 20 on as well; 4 summons from round 30 on, which nothing stops. A table's
#: config says which it plays; a stored table or record from before editions were numbered
#: plays 1.
EDITIONS = (1, 2, 3, 4)
LATEST_EDITION = 4

ABOUT = About(
    name="sugi",
    title="Sugi",
    options=(
        Option("players", 2, (2, 3, 4, 5), "how many play (2-5)"),
        Option("edition", LATEST_EDITION, EDITIONS,
               "our edition's rules: 4 calls from two home or round 20 and summons from "
               "round 30 (RULES.md S17), 3 only calls, 2 calls from two home only, 1 never"),
    ),
)
