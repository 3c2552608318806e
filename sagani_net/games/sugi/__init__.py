"""Sugi, Víctor Samitier's samurai race through a haunted forest: 2-5 players, our edition."""

from sagani_net.games import rules_on_demand

# GAME, the rules, is imported when first asked for: sagani_net.games.about reads about.py alone.
__getattr__ = rules_on_demand("sagani_net.games.sugi.rules", "SUGI")
__all__ = ["GAME"]
