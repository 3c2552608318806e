"""Sagrada, the dice-drafting stained-glass game: 1-4 players (1 is the solo game)."""

from sagani_net.games import rules_on_demand

# GAME, the rules, is imported when first asked for: sagani_net.games.about reads about.py alone.
__getattr__ = rules_on_demand("sagani_net.games.sagrada.rules", "SAGRADA")
__all__ = ["GAME"]
