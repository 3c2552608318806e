"""Sugi, Víctor Samitier's samurai race through a haunted forest: 2-5 players, our edition."""

from sagani_net.games.sugi.rules import SUGI as GAME

__all__ = ["GAME"]
