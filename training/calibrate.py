"""Set decoding's uncertainty threshold by measurement on the calibration sets (never a test set)::

    python -m training.calibrate [--set calibration calibration-phone] [--unseen selection-unseen] [--reader W] [--detector W] [--target-wrong 0.9] [--cache DIR]

The calibration sets show the training editions at fresh seeds, as small photos (``calibration``)
and as a phone takes them (``calibration-phone``, 12 MP); their tiles are pooled, so the threshold
serves both. Every photo is read end to end once; each tile read is right or wrong (a box on no
labelled tile is wrong) and has its decoded confidence. A tile is flagged uncertain when its
confidence is below the threshold, so one pass gives the flag rates of every threshold. The
threshold chosen is the lowest that flags at least ``target-wrong`` of the wrong tiles: flagging
more would only bother the player with right tiles. The training editions understate how often the
reader is wrong while sure on a set it never saw, which is what every player's set is to it; so the
threshold must also flag ``target-wrong`` of the wrong tiles on an edition no model was trained on
(``--unseen``: ``selection-unseen``, the selection-only edition), and the higher of the two is
chosen (:func:`choose_threshold_each`; declared in session 17, first used in session 18). Tiles read as jokers get a threshold of their
own (``joker_uncertain_below``): a phantom joker costs 30 points on the score sheet where a tile's
number costs 7 on average, and builds moves on a tile that is not there, while a right joker
flagged costs one tap. So a joker may be wrong at most 7/30 as often as the general threshold lets
a tile be (:func:`cost_scaled_threshold`), and the threshold also flags every wrong joker of the
calibration photos (``--target-wrong-joker``), whichever is higher. The figures on the held-out
editions are then measured with both thresholds by :mod:`training.evaluate_suite`, which never
sees this choice.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from solver.tiles import JOKER_INDEX
from training.evaluate_suite import MATCH_IOU, decide_photo, load_testset, see_photo, without_hidden
from training.metrics import match
from training.testsets import DEFAULT_OUT, TEST_SETS
from training.tile_reading import load_any_reader
from vision.detections import Detections
from vision.decoding import DEFAULT_SETTINGS
from vision.pipeline import MIN_TILE_PROB
from vision.sharpness import blurred_tiles

__all__ = [
    "TileOutcomes", "tile_outcomes", "flag_rates", "choose_threshold", "choose_threshold_each", "joined", "choose_joker_threshold",
    "choose_blur_limit", "with_blur_limit",
    "cost_scaled_threshold",
    "main",
]

#: The sets tuned on (never reported as tests).
CALIBRATION_SETS = tuple(t.name for t in TEST_SETS if not t.is_test and not t.selects_models and not t.guards_non_tiles)
#: An edition no model was trained on (a selection set: thresholds, like models, are chosen there, never on a test set).
UNSEEN_SETS = ("selection-unseen",)
THRESHOLDS = tuple(round(float(t), 3) for t in np.arange(0.5, 0.996, 0.01))


@dataclass(frozen=True)
class TileOutcomes:
    """Every tile read in some photos: right or wrong (a box on no labelled tile is wrong), its decoded
    confidence (the lower of it with and without the inks, as the reading's flag sees it:
    :attr:`training.evaluate_suite.PhotoReading.flag_confidence`), the reader's probability that the
    box shows no tile, the tile it was read as, whether it is held in doubt whatever the
    threshold (``doubted``: the inks changed it; None: none is), and its blur (``blurs``,
    :func:`vision.sharpness.tile_blurs`; NaN: not measured; None: none known)."""

    right: np.ndarray
    confidence: np.ndarray
    not_tile: np.ndarray
    labels: np.ndarray
    doubted: np.ndarray | None = None
    blurs: np.ndarray | None = None

    @property
    def jokers(self) -> np.ndarray:
        """Mask of the tiles read as jokers."""
        return self.labels == JOKER_INDEX

    @property
    def held(self) -> np.ndarray:
        """Mask of the tiles held in doubt whatever the threshold (the inks changed them)."""
        return np.zeros(len(self.right), bool) if self.doubted is None else np.asarray(self.doubted, bool)

    def blurred_held(self, limit: float) -> TileOutcomes:
        """The same tiles with those smeared past ``limit`` held in doubt too, as the reading flags
        them whatever their confidence (:attr:`vision.decoding.DecodingSettings.blurred_tile`)."""
        if self.blurs is None:
            return self
        return replace(self, doubted=self.held | blurred_tiles(self.blurs, limit))


def tile_outcomes(
    photos, detector: Path | None, reader, cache: Path | None = None, min_tile_prob: float = MIN_TILE_PROB
) -> TileOutcomes:
    """The outcome of every tile read in ``photos`` (tiles read on hidden tiles left out), behind the
    gate ``min_tile_prob`` (:func:`training.evaluate_suite.decide_photo`)."""
    right, confidence, not_tile, labels, doubted, blurs = [], [], [], [], [], []
    for photo in photos:
        seen = see_photo(photo.image_path, detector, reader, cache)
        reading, _ = without_hidden(photo, decide_photo(seen, photo.kind, min_tile_prob=min_tile_prob))
        pairs = match(Detections(reading.boxes, np.ones(len(reading.boxes), np.float32)), photo.boxes, MATCH_IOU)
        for i, label in enumerate(reading.labels):
            right.append(i in pairs and label == photo.labels[pairs[i]])
            confidence.append((reading.confidence if reading.flag_confidence is None else reading.flag_confidence)[i])
            not_tile.append(reading.not_tile[i])
            labels.append(label)
            doubted.append(reading.changed_by_inks is not None and bool(reading.changed_by_inks[i]))
            blurs.append(np.nan if reading.blurs is None else float(reading.blurs[i]))
    return TileOutcomes(
        np.array(right, bool), np.array(confidence, float), np.array(not_tile, float), np.array(labels, np.int64),
        np.array(doubted, bool), np.array(blurs, float),
    )


def flag_rates(
    right: np.ndarray, confidence: np.ndarray, threshold: float, doubted: np.ndarray | None = None,
) -> tuple[float, float]:
    """(share of wrong tiles flagged, share of right tiles flagged) at ``threshold``; the tiles
    ``doubted`` selects are flagged at every threshold."""
    flagged = confidence < threshold
    if doubted is not None:
        flagged = flagged | np.asarray(doubted, bool)
    wrong = ~right
    return (float(flagged[wrong].mean()) if wrong.any() else 1.0, float(flagged[right].mean()) if right.any() else 0.0)


def choose_threshold(
    right: np.ndarray, confidence: np.ndarray, target_wrong: float, thresholds: Sequence[float] = THRESHOLDS,
    doubted: np.ndarray | None = None,
) -> float:
    """The lowest threshold flagging at least ``target_wrong`` of the wrong tiles (the highest if none
    does); the tiles ``doubted`` selects count as flagged at every threshold."""
    for threshold in thresholds:
        if flag_rates(right, confidence, threshold, doubted)[0] >= target_wrong:
            return float(threshold)
    return float(thresholds[-1])


def choose_threshold_each(groups: Sequence[TileOutcomes], target_wrong: float, thresholds: Sequence[float] = THRESHOLDS) -> float:
    """The lowest threshold flagging at least ``target_wrong`` of the wrong tiles in *each* group
    (a group without wrong tiles asks nothing: :func:`flag_rates` counts it all flagged)."""
    if not groups:
        raise ValueError("no tiles to calibrate on")
    return max(choose_threshold(g.right, g.confidence, target_wrong, thresholds, g.held) for g in groups)


def joined(groups: Sequence[TileOutcomes]) -> TileOutcomes:
    """The groups' tiles as one."""
    every = [replace(g, doubted=g.held, blurs=np.full(len(g.right), np.nan) if g.blurs is None else g.blurs) for g in groups]
    return TileOutcomes(*(np.concatenate([getattr(g, f.name) for g in every]) for f in fields(TileOutcomes)))


def with_blur_limit(
    groups: Sequence[TileOutcomes], limit: float, target_wrong: float, thresholds: Sequence[float] = THRESHOLDS,
) -> tuple[float, float, float]:
    """(threshold, wrong flagged, right flagged) when the tiles smeared past ``limit`` are held in
    doubt: the threshold by :func:`choose_threshold_each`, the shares over all the groups together."""
    held = [g.blurred_held(limit) for g in groups]
    threshold = choose_threshold_each(held, target_wrong, thresholds)
    every = joined(held)
    return (threshold, *flag_rates(every.right, every.confidence, threshold, every.held))


def choose_blur_limit(
    groups: Sequence[TileOutcomes], limits: Sequence[float], target_wrong: float, thresholds: Sequence[float] = THRESHOLDS,
) -> tuple[float, float]:
    """(blur limit, threshold): of ``limits``, the one whose threshold (:func:`with_blur_limit`)
    flags the fewest right tiles of all the groups together; a tie goes to the higher limit, which
    flags fewer tiles for their blur alone.

    Why: a smeared tile the reader is sure of is flagged by its blur, so the threshold needed to
    flag ``target_wrong`` of the wrong tiles can fall; the limit that lets it fall furthest for the
    right tiles it flags itself bothers the player least."""
    if not limits:
        raise ValueError("no blur limit to choose from")
    rates = {limit: with_blur_limit(groups, limit, target_wrong, thresholds) for limit in limits}
    limit = min(sorted(rates, reverse=True), key=lambda b: rates[b][2])
    return limit, rates[limit][0]


#: What a tile's number is worth on average (1..13), and what a joker left on a rack costs (standard rules).
MEAN_TILE_VALUE, JOKER_PENALTY = 7.0, 30.0


def cost_scaled_threshold(general: float, penalty: float = JOKER_PENALTY, value: float = MEAN_TILE_VALUE) -> float:
    """The threshold under which a joker is flagged when the chance of it being wrong that is accepted
    for a tile (1 - ``general``) is scaled by what a wrong reading costs (``value`` / ``penalty``),
    rounded up to the thresholds' step."""
    if not 0.0 < general < 1.0 or penalty <= 0 or value <= 0:
        raise ValueError("the general threshold must lie in (0, 1) and the costs be positive")
    return math.ceil(round(100 * (1.0 - (1.0 - general) * min(1.0, value / penalty)), 6)) / 100


def choose_joker_threshold(outcomes: TileOutcomes, general: float, target_wrong: float = 1.0,
                           thresholds: Sequence[float] = THRESHOLDS) -> float:
    """The jokers' own threshold: the cost-scaled one (:func:`cost_scaled_threshold`), or higher if
    that is needed to flag ``target_wrong`` of the wrong jokers among ``outcomes``."""
    floor = cost_scaled_threshold(general)
    jokers = outcomes.jokers
    if not (~outcomes.right[jokers]).any():
        return floor
    return max(floor, choose_threshold(
        outcomes.right[jokers], outcomes.confidence[jokers], target_wrong, thresholds, outcomes.held[jokers],
    ))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.calibrate", description=__doc__.split("\n")[0])
    parser.add_argument("--set", nargs="+", default=list(CALIBRATION_SETS), help="the sets under --testsets to calibrate on, pooled")
    parser.add_argument("--unseen", nargs="*", default=list(UNSEEN_SETS),
                        help="sets of an edition no model was trained on, pooled: the threshold must serve them too (none: off)")
    parser.add_argument("--testsets", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--reader", type=Path)
    parser.add_argument("--detector", type=Path)
    parser.add_argument("--target-wrong", type=float, default=0.9)
    parser.add_argument("--target-wrong-joker", type=float, default=1.0, help="share of the wrong jokers to flag")
    parser.add_argument("--blurred-tile", type=float, nargs="+", default=[DEFAULT_SETTINGS.blurred_tile],
                        help="blur limits (a share of a tile's length) to choose from, inf for none: a tile smeared past "
                             "the chosen one is flagged whatever its confidence (default: the shipped one)")
    parser.add_argument("--json", type=Path, help="also write every tile's outcome here")
    parser.add_argument("--min-tile-prob", type=float, default=MIN_TILE_PROB,
                        help="the gate the tiles are read behind (training.evaluate's option of that name)")
    parser.add_argument("--cache", type=Path, help="reuse the detections and reader output saved here (training.evaluate --cache)")
    args = parser.parse_args(argv)
    if not all(limit > 0 for limit in args.blurred_tile):
        parser.error(f"--blurred-tile limits must be above 0 (got {args.blurred_tile})")
    selection = {t.name for t in TEST_SETS if t.selects_models}
    guards = {t.name for t in TEST_SETS if t.guards_non_tiles}
    for name in sorted(set(args.set) - set(CALIBRATION_SETS)):
        why = ("a selection set: models chosen on it are then chosen on the threshold's photos" if name in selection
               else "a set the rule against non-tiles is chosen on: that rule is then chosen on the threshold's photos"
               if name in guards else "a test set: its figures are then no longer a test")
        print(f"note: calibrating on {name!r}, {why}", file=sys.stderr)
    for name in sorted(set(args.unseen) - selection):
        print(f"note: {name!r} is not a selection set: its figures are then no longer a test", file=sys.stderr)
    reader = load_any_reader(args.reader)
    groups = []
    for names in (args.set, args.unseen):
        if names:
            photos = [photo for name in names for photo in load_testset(args.testsets / name)]
            groups.append(tile_outcomes(photos, args.detector, reader, args.cache, args.min_tile_prob))
    if len(args.blurred_tile) > 1:
        print("blur limit  threshold  wrong flagged  right flagged")
        for limit in args.blurred_tile:
            threshold, w, r = with_blur_limit(groups, limit, args.target_wrong)
            print(f"  {limit:<9g} {threshold:.2f}       {w:.3f}          {r:.3f}")
    limit, _ = choose_blur_limit(groups, args.blurred_tile, args.target_wrong)
    print(f"chosen blurred_tile {limit:g}")
    groups = [g.blurred_held(limit) for g in groups]
    outcomes = joined(groups)
    right, confidence, held = outcomes.right, outcomes.confidence, outcomes.held
    print(f"{len(right)} tiles read, {int((~right).sum())} wrong, {int(held.sum())} held in doubt whatever the threshold")
    if args.json:
        args.json.write_text(json.dumps({"right": right.tolist(), "confidence": confidence.tolist(),
                                         "not_tile": outcomes.not_tile.tolist(), "labels": outcomes.labels.tolist()}))
    for names, group in zip((args.set, args.unseen), groups):
        alone = choose_threshold(group.right, group.confidence, args.target_wrong, doubted=group.held)
        w, r = flag_rates(group.right, group.confidence, alone, group.held)
        print(f"{' + '.join(names)}: {len(group.right)} tiles, {int((~group.right).sum())} wrong; alone {alone:.2f} "
              f"(wrong flagged {w:.3f}, right flagged {r:.3f})")
    print("threshold  wrong flagged  right flagged")
    for threshold in THRESHOLDS[::5]:
        w, r = flag_rates(right, confidence, threshold, held)
        print(f"  {threshold:.2f}      {w:.3f}          {r:.3f}")
    chosen = choose_threshold_each(groups, args.target_wrong)
    w, r = flag_rates(right, confidence, chosen, held)
    print(f"chosen uncertain_below {chosen:.2f}: wrong flagged {w:.3f}, right flagged {r:.3f}")
    jokers = outcomes.jokers
    joker_right, joker_confidence = right[jokers], confidence[jokers]
    print(f"{int(jokers.sum())} tiles read as jokers, {int((~joker_right).sum())} wrong; wrong-joker confidences: "
          + (" ".join(f"{c:.3f}" for c in sorted(joker_confidence[~joker_right])) or "-"))
    joker = choose_joker_threshold(outcomes, chosen, args.target_wrong_joker)
    w, r = flag_rates(joker_right, joker_confidence, joker, held[jokers])
    print(f"chosen joker_uncertain_below {joker:.2f}: wrong jokers flagged {w:.3f}, right jokers flagged {r:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
