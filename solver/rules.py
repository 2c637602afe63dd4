"""The rule set: one frozen value, passed everywhere, that holds every rulebook variant.

Defaults are the standard game. Variants people play are settings of this value, never
forks of the code. Named presets live in :data:`PRESETS`.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Iterable

from .i18n import Message, TranslatableError
from .tiles import JOKER, Tile


class PoolOutScoring(enum.Enum):
    """How a round is scored when the pool is exhausted and nobody can move."""

    #: Lowest rack total wins; each other player pays the difference to the winner's total.
    LOWEST_TOTAL_PAYS_DIFFERENCE = "lowest-total-difference"
    #: Fewest tiles wins; scored as if that player had gone out.
    FEWEST_TILES = "fewest-tiles"
    #: Lowest total wins; each loser pays their own rack total; the winner gains the sum.
    LOWEST_TOTAL_OWN_RACK = "lowest-total-own-rack"


class UnmeldedScoring(enum.Enum):
    """How a player who never made the initial meld is scored at the end of a round."""

    #: No difference: they pay (or win) like every other player.
    LIKE_OTHERS = "like-others"
    #: Pressman: their rack total is added to each other player's score. To keep the round
    #: zero-sum they pay that total to every other player (so n-1 times), they cannot win the
    #: round, and the ordinary scoring runs among the players who did meld.
    PAYS_EACH_PLAYER = "pays-each-player"
    #: Mind Sports Olympiad: instead of their rack total they pay a fixed charge,
    #: :data:`UNMELDED_CHARGE`, or :data:`UNMELDED_CHARGE_COULD_MELD` when they could have made
    #: the initial meld and chose not to (the scorekeeper says which). They cannot win the
    #: round; the charge goes to the winners like any other payment, so the round stays zero-sum.
    FIXED_CHARGE = "fixed-charge"


#: What a player who never made the initial meld pays under :attr:`UnmeldedScoring.FIXED_CHARGE`.
UNMELDED_CHARGE = 100
#: The same, when they could have made it and chose not to.
UNMELDED_CHARGE_COULD_MELD = 200


class RulesError(TranslatableError, ValueError):
    """A rule set is inconsistent (e.g. a threshold below zero) or not modelled by the solver."""


#: Most jokers a game may have. The solver's candidate melds (runs of 3-5 and their
#: extensions, groups of 3-4) hold every move with up to four jokers; with five, a run of one
#: tile and five jokers has no candidate, so its answers could be wrong yet marked optimal.
MAX_JOKERS = 4


class ImpossibleStateError(TranslatableError, ValueError):
    """The tiles described cannot exist in one game under the rule set (e.g. three red 7s).

    ``tiles`` are the tiles with too many copies; a ``{tiles}`` placeholder in the message
    shows them in the reader's language.
    """

    def __init__(self, message: str, tiles: tuple[Tile, ...] = (), **params: object) -> None:
        super().__init__(message, tiles=tuple(tiles), **params)
        self.tiles = tuple(tiles)


@dataclass(frozen=True)
class RuleSet:
    """Every setting that differs between rulebooks. Defaults: the standard game."""

    copies: int = 2
    jokers: int = 2
    min_meld_size: int = 3
    initial_meld_threshold: int = 30
    joker_penalty: int = 30
    starting_tiles: int = 14
    jokers_in_initial_meld: bool = True
    group_colours_distinct: bool = True
    pool_out_scoring: PoolOutScoring = PoolOutScoring.LOWEST_TOTAL_PAYS_DIFFERENCE
    unmelded_scoring: UnmeldedScoring = UnmeldedScoring.LIKE_OTHERS
    #: Exactly this many players (0: any number, as in the standard game's 2 to 4).
    players: int = 0
    #: Jokers each player is dealt face up before drawing the rest of their starting tiles.
    starting_jokers: int = 0
    name: str = field(default="standard", compare=False)

    def __post_init__(self) -> None:
        if self.copies < 1:
            raise RulesError("copies must be at least 1")
        if self.jokers < 0:
            raise RulesError("jokers cannot be negative")
        if self.jokers > MAX_JOKERS:
            raise RulesError(
                "at most {limit} jokers are supported, not {jokers}", limit=MAX_JOKERS, jokers=self.jokers
            )
        if self.min_meld_size < 2:
            raise RulesError("a meld has at least 2 tiles")
        if self.initial_meld_threshold < 0:
            raise RulesError("the initial meld threshold cannot be negative")
        if self.joker_penalty < 0:
            raise RulesError("a joker left on a rack cannot cost negative points")
        if self.starting_tiles < 1:
            raise RulesError("players start with at least one tile")
        if self.players < 0 or self.players == 1:
            raise RulesError("a game has at least two players (0: any number)")
        if not 0 <= self.starting_jokers <= min(self.jokers, self.starting_tiles):
            raise RulesError(
                "players cannot each start with {count} joker(s): the game has {jokers} joker(s) and "
                "{tiles} starting tiles per player", count=self.starting_jokers, jokers=self.jokers, tiles=self.starting_tiles,
            )
        if self.players and self.players * self.starting_jokers > self.jokers:
            raise RulesError(
                "{players} players cannot each start with {count} joker(s) when the game has {jokers}",
                players=self.players, count=self.starting_jokers, jokers=self.jokers,
            )

    @property
    def total_tiles(self) -> int:
        return 52 * self.copies + self.jokers

    def max_count(self, tile: Tile) -> int:
        """How many copies of ``tile`` exist in one game."""
        return self.jokers if tile.is_joker else self.copies

    def penalty(self, tile: Tile) -> int:
        """Points a tile left on the rack costs at the end of a round."""
        return self.joker_penalty if tile.is_joker else int(tile.number or 0)

    def with_(self, **changes: object) -> "RuleSet":
        """These rules with some settings changed, named after the preset they then match
        ("custom" when none): the one way the CLI's switches and the app's sidebar customise
        a preset."""
        changed = replace(self, **changes)  # type: ignore[arg-type]
        return changed.named(preset_for(changed))


    def named(self, name: str) -> "RuleSet":
        """The same rules under another name (names never change what the rules do)."""
        return replace(self, name=name)


STANDARD = RuleSet()

#: Named rule sets. The first two, and ``mso`` (the Mind Sports Olympiad's tournament rules), follow rulebooks (see the README's "Rules and variants"):
#: the Pressman 1998 American rules, and the European boxes' rule that the initial meld is
#: made without jokers. The others change one setting each. The keys are stored with every
#: game and accepted by ``--rules``: never rename one.
PRESETS: dict[str, RuleSet] = {
    "standard": STANDARD,
    "pressman-1998": RuleSet(unmelded_scoring=UnmeldedScoring.PAYS_EACH_PLAYER, name="pressman-1998"),
    "european": RuleSet(jokers_in_initial_meld=False, name="european"),
    "opening-50": RuleSet(initial_meld_threshold=50, name="opening-50"),
    "four-jokers": RuleSet(jokers=4, name="four-jokers"),
    "sixteen-tiles": RuleSet(starting_tiles=16, name="sixteen-tiles"),
    "no-joker-opening": RuleSet(jokers_in_initial_meld=False, name="no-joker-opening"),
    "repeated-colours": RuleSet(group_colours_distinct=False, name="repeated-colours"),
    # The Mind Sports Olympiad's Rummikub event (msoworld.com, 2019; mindsportsolympiad.com, 2025).
    "mso": RuleSet(
        players=2, joker_penalty=50, unmelded_scoring=UnmeldedScoring.FIXED_CHARGE, starting_jokers=1, name="mso",
    ),
}

#: The name of rules that match no preset.
CUSTOM = "custom"


def preset_for(rules: RuleSet) -> str:
    """The first preset that plays and scores exactly like ``rules``, else :data:`CUSTOM`."""
    if rules.name in PRESETS and PRESETS[rules.name] == rules:
        return rules.name
    return next((name for name, preset in PRESETS.items() if preset == rules), CUSTOM)


def preset(name: str) -> RuleSet:
    """The preset called ``name``; :class:`RulesError` names the known ones otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise RulesError(
            "unknown rule preset {name!r} (known: {known})", name=name, known=", ".join(PRESETS)
        ) from None


def check_tile_limits(tiles: Iterable[Tile], rules: RuleSet = STANDARD) -> None:
    """Raise :class:`ImpossibleStateError` when more copies of a tile appear than exist."""
    counts = Counter(tiles)
    excess = sorted(
        (t for t, n in counts.items() if n > rules.max_count(t)), key=lambda t: t.index
    )
    if excess:
        detail = tuple(
            Message("{count}x {tile} (max {max})", {"count": counts[t], "tile": t, "max": rules.max_count(t)})
            for t in excess
        )
        raise ImpossibleStateError("more copies than the game has: {detail}", tuple(excess), detail=detail)


__all__ = [
    "CUSTOM",
    "ImpossibleStateError",
    "JOKER",
    "MAX_JOKERS",
    "PRESETS",
    "PoolOutScoring",
    "RuleSet",
    "RulesError",
    "STANDARD",
    "UNMELDED_CHARGE",
    "UNMELDED_CHARGE_COULD_MELD",
    "UnmeldedScoring",
    "check_tile_limits",
    "preset",
    "preset_for",
]
