"""Sagani, Uwe Rosenberg's tile-laying game: 2-4 players, and two solo modes."""

from sagani_net.games import rules_on_demand

# GAME, the rules, is imported when first asked for: sagani_net.games.about reads about.py alone.
__getattr__ = rules_on_demand("sagani_net.games.sagani.rules", "SAGANI")
__all__ = ["GAME"]
