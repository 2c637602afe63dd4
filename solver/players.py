"""The one rule for player names and how many players a game has (CLI, score store, app).

A name is what was typed with the spaces around it dropped, runs of spaces inside it made one
space, and its Unicode normalised (NFC), so ``" José"`` typed with a combining accent and
``"José"`` are the same player. Two names that differ only in case (``Ann``, ``ann``) are the
same player too: on one score sheet they could only be a typo. A name keeps the case it was
typed in. A game has 2-4 players, as the rulebook says.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Iterable

from .scoring import ScoringError

MIN_PLAYERS = 2
MAX_PLAYERS = 4

_SPACES = re.compile(r"\s+")


def player_name(text: str) -> str:
    """``text`` as a player's name (trimmed, inner spaces single, NFC); may be empty."""
    return _SPACES.sub(" ", unicodedata.normalize("NFC", text)).strip()


def name_key(name: str) -> str:
    """What two names must share to be the same player."""
    return player_name(name).casefold()


def player_names(names: Iterable[str]) -> tuple[str, ...]:
    """The players of a game in seating order, each name as :func:`player_name` gives it.

    Raises :class:`~solver.scoring.ScoringError` for an empty name, two names of the same
    player, or fewer than :data:`MIN_PLAYERS` or more than :data:`MAX_PLAYERS` players.
    """
    players = tuple(player_name(n) for n in names)
    if any(not n for n in players):
        raise ScoringError("every player needs a name")
    keys = [name_key(n) for n in players]
    first = {key: name for key, name in reversed(list(zip(keys, players)))}  # each player as first typed
    duplicates = [first[key] for key in dict.fromkeys(keys) if keys.count(key) > 1]
    if duplicates:
        raise ScoringError("duplicate player names: {names}", names=", ".join(duplicates))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise ScoringError(
            "a game has {low} to {high} players, not {count}", low=MIN_PLAYERS, high=MAX_PLAYERS, count=len(players)
        )
    return players
