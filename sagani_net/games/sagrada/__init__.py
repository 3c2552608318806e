"""Sagrada, the dice-drafting stained-glass game: 1-4 players (1 is the solo game)."""

from sagani_net.games.sagrada.rules import SAGRADA as GAME

__all__ = ["GAME"]
