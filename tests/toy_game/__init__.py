"""Hands, the tests' fourth game: a whole game package (rules, words, UI, RULES.md) that the
house serves through one registry line (``games.PACKAGES["toy"] = "toy_game"``)."""

from toy_game.rules import GAME

__all__ = ["GAME"]
