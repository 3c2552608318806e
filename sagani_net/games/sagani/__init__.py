"""Sagani, Uwe Rosenberg's tile-laying game: 2-4 players, and two solo modes."""

from sagani_net.games.sagani.rules import SAGANI as GAME

__all__ = ["GAME"]
