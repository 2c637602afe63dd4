"""How much a calibration profile helps, measured (a script, not a test)::

    python -m training.evaluate_profiles [--photos 10] [--seed 1] [--editions NAME ...] [--data PATH]
                                         [--skip-real] [--skip-synthetic] [--test-set NAME] [--json OUT.json]
                                         [--ink-settings WEIGHT,FLOOR ...] [--gate-study | --retakes | --removals | --left-out]

1. **Held-out editions** (:data:`datasets.synth.editions.HELD_OUT_EDITIONS`, kept out of all
   training; ``--editions`` takes any of the catalogue). Per edition, one calibration photo of its
   tiles in the default layout (:func:`datasets.synth.rows.lay_out_rows`, 1600 x 1200, any table
   surface) is paired with the layout (:func:`vision.calibration.collect_samples`; a photo the app
   refuses is taken again, and reported), and ``--photos`` test photos of the edition drawn as the
   held-out test set draws them (:data:`HELD_OUT_RECIPE`: tables, racks, close-ups, grids, up to
   two distractors; ``--test-set held-out-phone``: as that set draws them, 12 MP) are read end to
   end, tables and grids as tables, racks and close-ups as racks:
   tile precision / recall / F1 of the decoded reading against the labels, photos read exactly,
   the share of labelled tiles the detector found, and of those, the share read right (decoded,
   and by the classifier alone) - without a profile and with each adaptation method
   (:func:`methods`) on the boxes the gate kept, and the shipped profile as the app reads with it
   (the boxes the gate dropped that the profile vouches for kept too, :func:`vouched`; each colour
   weighed by the photo's own inks and the profile's, :mod:`vision.ink_colour`, and what the inks
   alone change or make sure held in doubt, :func:`as_read` and :func:`_decided`), with one and
   with two calibration photos, and without the inks; without a profile as :func:`vision.read`
   reads (the photo's own inks); ``--ink-settings``: also with the profile's inks alone heard at
   other weights and floors. The shipped profile and no profile are scored once more on the photos
   that draw no note on how to take a better one (:meth:`vision.reading.PhotoLook.advice`: tiles small
   or blurred), which a player is asked to take again.
   Each row also counts wrong tiles shown as sure and right tiles flagged.
2. **Corrections** (:func:`corrections_needed`): a class the reader keeps getting wrong is taught
   one Play-page *Change* at a time, through the Play page's own code (:func:`vision.read` with the
   profile, :func:`app.tile_profiles.teach_profile`, the profile saved and loaded again); reported:
   how many corrections until its tiles on new photos are read right.
3. **The real validation split** with profiles made from the real training split (one random tile
   per class, as one calibration photo of the training edition would give; three such profiles):
   tiles misread at the labelled boxes with each method and profile, and end to end without and
   with the first profile as the app reads with it (no regression is the target).
4. **Time** to calibrate from one 12 MP JPEG (4000 x 3000, the default layout), file to profile.
5. ``--gate-study``: could a profile vouch for the boxes the gate drops (detector x P(tile) below
   :data:`vision.pipeline.MIN_TILE_PROB`)? The cosine to the profile's nearest class mean of every
   box, split by kept / dropped and tile / not a tile, and how many of the dropped ones the
   profile vouches for (:func:`gate_study`); nothing else runs.
6. ``--retakes``: does a correction fix the tile the next time the table is photographed
   (:func:`retake_study`)? Each photo's misreads are corrected through the Play page's code, the
   table is photographed again (the camera moved a little, other light) and read with the
   calibration profile alone, the taught profile, and the corrections in the class means only;
   also without a profile, alone and with the photo's corrections remembered for the session
   (:func:`session_memory`, as the Play page remembers every change; ``--memory-weights``: also
   heard at other weights), and beside the taught profile; each row also counts wrong tiles shown
   as sure and right tiles flagged; nothing else runs.
7. ``--removals``: is a box the player removed as no tile flagged the next time the table is
   photographed, and is any real tile (:func:`removal_study`)? Photos with rack ends and
   distractors (:func:`with_phantoms`, sized as ``--test-set`` sizes them), remembered for the
   session (no profile), and taught to a calibration profile; the non-tiles the gate dropped stand
   in for the phantoms of real photos; nothing else runs.
8. ``--left-out``: is a tile the player added from a box the camera left out kept the next time the
   table is photographed (:func:`left_out_study`)? The offered boxes on readable tiles are added as
   the tiles they are and remembered for the session; the retaken photo is read without and with
   that memory; nothing else runs.

No setting here is tuned on the figures reported: the shipped method's were chosen before (on
``--seed 0``); the reported figures are the default ``--seed 1``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from datasets.synth.editions import HELD_OUT, HELD_OUT_EDITIONS, Edition, edition
from datasets.synth.rows import lay_out_rows
from datasets.synth.scenes import Scene
from datasets.synth.writer import SceneRecipe
from solver.rules import STANDARD
from solver.tiles import NUM_KINDS, Tile
from training.evaluate_suite import MIN_NUMBER_VISIBLE, on_hidden
from training.testsets import TEST_SETS
from vision.calibration import DEFAULT_LAYOUT, CalibrationError, collect_samples
from vision.decoding import Decoding
from vision.detections import Detections, box_iou, box_overlap, median_length
from vision.ink_colour import INK_MARGIN, ink_directions, weigh_colours
from vision.pipeline import InkedDecoding, SeenTiles, adapted_by, decode_photo, decode_with_inks
from vision.profiles import VOUCH_RECOGNISED, VOUCH_TILE_PROB, WEIGHT, TileProfile, TileSample, unit_rows
from vision.reading import PhotoLook, ReadingKind
from vision.session_memory import SessionMemory
from vision.sharpness import photo_blur

Adapter = Callable[[np.ndarray, np.ndarray], np.ndarray]
#: What the photos of the held-out test set show (their kinds and distractors), for one edition at a time.
HELD_OUT_SETS = {t.name: t.recipe for t in TEST_SETS if set(t.recipe.editions) & HELD_OUT}
HELD_OUT_RECIPE = HELD_OUT_SETS["held-out-editions"]
#: IoU at which a detection counts as a labelled tile.
MATCH_IOU = 0.5


@dataclass(frozen=True, eq=False)
class SeenPhoto:
    """One test photo read once: everything the methods need to re-decode it."""

    detections: Detections
    groups: list[list[int]]
    probs: np.ndarray
    embeddings: np.ndarray
    truth: list[int]  # labelled tiles
    matched: np.ndarray  # per detection: the labelled tile's class, or -1
    kind: str = "table"  # how a player reads it: "table" (melds checked by the rules) or "rack"
    #: Per detection: whether its reading counts (not when it lies on a tile whose number is
    #: hidden and matches no readable one, as in :func:`training.evaluate_suite.off_hidden`); None: all.
    counted: np.ndarray | None = None
    #: What :func:`vision.pipeline.see_tiles` saw (the boxes the gate dropped too), the labelled
    #: boxes and the hidden tiles' boxes: what :func:`vouched` needs to see the photo again with a profile.
    seen: SeenTiles | None = None
    truth_boxes: np.ndarray | None = None
    hidden: np.ndarray | None = None


# --- the methods compared ----------------------------------------------------------------------


def _product(profile: TileProfile, weight: float = 0.5) -> Adapter:
    """Product of experts among the profile's classes: p ** (1 - w) * q ** w, their total mass kept."""

    def adapt(probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        if not len(probs):
            return probs
        q, _ = profile.opinion(embeddings)
        seen = profile.seen
        mixed = np.maximum(probs[:, seen], 1e-12) ** (1 - weight) * np.maximum(q[:, seen], 1e-12) ** weight
        out = probs.copy()
        out[:, seen] = mixed / mixed.sum(axis=1, keepdims=True) * probs[:, seen].sum(axis=1, keepdims=True)
        return out

    return adapt


def _ungated(profile: TileProfile, weight: float = WEIGHT) -> Adapter:
    """The shipped mix without the gate: the profile is heard on every tile."""

    def adapt(probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        return probs if not len(probs) else (1 - weight) * probs + weight * profile.opinion(embeddings)[0]

    return adapt


def _logistic_head(
    profile: TileProfile, tiles: Sequence[Tile], crops: np.ndarray, steps: int = 300, l2: float = 1e-2, lr: float = 0.5
) -> Adapter:
    """A residual linear head on the centred unit embeddings, fitted by gradient descent (numpy).

    Logits are the classifier's log-probabilities plus ``W e + b``, W and b starting at zero, so
    an untrained head changes nothing; cross-entropy on ``tiles`` (read from ``crops``, (margins,
    n, s, s, 3)) plus an L2 penalty.
    """
    from vision.reader import load_reader, read_views

    seen = read_views(crops, load_reader())
    features = unit_rows(seen.embeddings - profile.centre)
    onehot = np.eye(NUM_KINDS)[[t.index for t in tiles]]
    base = np.log(np.maximum(seen.probs, 1e-12))
    weights, bias = np.zeros((features.shape[1], NUM_KINDS)), np.zeros(NUM_KINDS)
    for _ in range(steps):
        logits = base + features @ weights + bias
        p = np.exp(logits - logits.max(axis=1, keepdims=True))
        grad = (p / p.sum(axis=1, keepdims=True) - onehot) / len(tiles)
        weights -= lr * (features.T @ grad + l2 * weights)
        bias -= lr * grad.sum(axis=0)

    def adapt(probs: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        if not len(probs):
            return probs
        logits = np.log(np.maximum(probs, 1e-12)) + unit_rows(embeddings - profile.centre) @ weights + bias
        out = np.exp(logits - logits.max(axis=1, keepdims=True))
        return out / out.sum(axis=1, keepdims=True)

    return adapt


def augmented(samples: Sequence[TileSample], rng: np.random.Generator, copies: int = 4) -> tuple[list[Tile], np.ndarray]:
    """``copies`` altered copies of each sample's crops, as (tiles, crops (margins, n, s, s, 3)): the
    calibration crops as smaller, tilted tiles in other light would look (shrunk to 12-40 px and
    back, turned a few degrees, brighter or darker with a colour cast) - what one photo of large
    upright tiles does not show."""
    tiles, altered = [], []
    for sample in samples:
        for _ in range(copies):
            size, gain, cast = int(rng.choice([12, 16, 20, 28, 40])), rng.uniform(0.6, 1.3), rng.normal(0, 12, 3)
            views = []
            for view in sample.crops:
                h, w = view.shape[:2]
                lit = np.clip(view.astype(np.float32) * gain + cast, 0, 255).astype(np.uint8)
                turn = cv2.getRotationMatrix2D((w / 2, h / 2), float(rng.normal(0, 8)), float(rng.uniform(0.9, 1.1)))
                turned = cv2.warpAffine(lit, turn, (w, h), borderMode=cv2.BORDER_REPLICATE)
                small = cv2.resize(turned, (size, size), interpolation=cv2.INTER_AREA)
                views.append(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR))
            tiles.append(sample.tile)
            altered.append(np.stack(views))
    return tiles, np.stack(altered, axis=1)


def methods(samples: Sequence[TileSample], extra: tuple[list[Tile], np.ndarray] | None = None) -> dict[str, Adapter]:
    """Each adaptation compared, fitted to one calibration photo's ``samples`` ("none": no profile);
    with ``extra`` (:func:`augmented` copies of them), the linear head fitted to both as well."""
    profile = TileProfile.from_samples("eval", samples)
    tiles, crops = [s.tile for s in samples], np.stack([s.crops for s in samples], axis=1)
    compared = {
        "none": lambda probs, embeddings: probs,
        "gated mix": profile.adapt,
        "ungated mix": _ungated(profile),
        "product of experts": _product(profile),
        "logistic head": _logistic_head(profile, tiles, crops),
    }
    compared["logistic head, then the gated mix"] = _then_gated(compared["logistic head"], profile)
    if extra is not None:
        compared["logistic head, augmented crops"] = _logistic_head(
            profile, tiles + extra[0], np.concatenate([crops, extra[1]], axis=1)
        )
        compared["logistic head, augmented crops, then the gated mix"] = _then_gated(
            compared["logistic head, augmented crops"], profile)
    return compared


def _then_gated(first: Adapter, profile: TileProfile) -> Adapter:
    """``first``'s probabilities, then mixed with the profile's opinion as the shipped profile mixes them."""
    return lambda probs, embeddings: profile.adapt(first(probs, embeddings), embeddings)


# --- scoring ---------------------------------------------------------------------------------


def _prf(tp: int, n_read: int, n_true: int) -> dict[str, float]:
    precision = tp / n_read if n_read else 1.0
    recall = tp / n_true if n_true else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


#: A method as :func:`score` takes one: a photo's probabilities before the inks weighed them and
#: after (the same array where a method hears no inks), decoded as :func:`vision.read` decodes them
#: (:func:`_decided`).
Method = Callable[["SeenPhoto"], tuple[np.ndarray, np.ndarray]]


def on_probs(adapt: Adapter) -> Method:
    """A method that sees only the reader's probabilities and embeddings (no inks, so no tile held in doubt)."""

    def read(photo: SeenPhoto) -> tuple[np.ndarray, np.ndarray]:
        adapted = adapt(photo.probs, photo.embeddings)
        return adapted, adapted

    return read


def as_read(profile: TileProfile | None) -> Method:
    """What :func:`vision.read` decodes a photo with, with ``profile`` (or none): the probabilities
    adapted by its class means, before and after they are weighed by the photo's own inks and the
    profile's (:func:`vision.pipeline.adapted_by`; no inks where the photo's crops were not kept)."""

    def read(photo: SeenPhoto) -> tuple[np.ndarray, np.ndarray]:
        if photo.seen is None:
            adapted = photo.probs if profile is None else profile.adapt(photo.probs, photo.embeddings)
            return adapted, adapted
        return adapted_by(profile, photo.seen)

    return read


def inks_heard(profile: TileProfile, weight: float, floor: float) -> Method:
    """:func:`as_read` with the profile's inks alone (not the photo's own first) heard at another
    ``weight`` and ``floor`` (:meth:`vision.ink_colour.InkModel.adapt`): how the shipped ones were
    chosen, before the photo's own inks joined them."""

    def read(photo: SeenPhoto) -> tuple[np.ndarray, np.ndarray]:
        plain = profile.adapt(photo.probs, photo.embeddings)
        if profile.inks is None or photo.seen is None or not len(plain):
            return plain, plain
        return plain, profile.inks.adapt(plain, ink_directions(photo.seen.views[INK_MARGIN]), weight, floor)

    return read


def _decided(photo: SeenPhoto, plain: np.ndarray, inked: np.ndarray) -> InkedDecoding:
    """``photo`` decoded as :func:`vision.read` decodes it from ``inked`` (its tiles' probabilities
    with the inks weighed in; ``plain`` before): the decoding shown, and the tiles the inks alone
    settled, held in doubt (:func:`vision.pipeline.decode_with_inks`)."""
    return decode_with_inks(plain, inked, photo.groups, ReadingKind(photo.kind), STANDARD, tile_prob=_tile_prob(photo))


def score(photos: Sequence[SeenPhoto], adapt: Method) -> dict:
    """End-to-end F1 (decoded), photos read exactly, and on the detections that match a labelled
    tile: their share of the labelled tiles (the detector's part), the classifier's accuracy and
    the decoded reading's (the part a profile can change), wrong tiles shown as sure and right
    tiles flagged. ``adapt`` gives a photo's probabilities before and after the inks (:func:`on_probs`,
    :func:`as_read`), decoded once as :func:`vision.read` decodes them (:func:`_decided`)."""
    tp = n_read = n_true = exact = correct = decoded_right = matched = wrong_sure = right_flagged = 0
    for photo in photos:
        plain, probs = adapt(photo)
        decided = _decided(photo, plain, probs) if len(probs) else None
        decoding = None if decided is None else decided.decoding
        labels = np.zeros(0, int) if decoding is None else np.array(decoding.labels, int)
        hits, shown, truth = _tallies(photo, labels)
        tp, n_read, n_true = tp + hits, n_read + shown, n_true + truth
        exact += int(hits == shown == truth)
        known = photo.matched >= 0
        matched += int(known.sum())
        if decoding is not None:
            correct += int((np.argmax(probs, axis=1)[known] == photo.matched[known]).sum())
            right = known & (labels == photo.matched)
            decoded_right += int(right.sum())
            flagged = decided.flagged
            wrong_sure += int((known & ~right & ~flagged).sum())
            right_flagged += int((right & flagged).sum())
    return {
        **{k: round(v, 4) for k, v in _prf(tp, n_read, n_true).items()},
        "photos_exact": round(exact / max(len(photos), 1), 4),
        "detected": round(matched / max(n_true, 1), 4),
        "classifier_accuracy": round(correct / max(matched, 1), 4),
        "decoded_accuracy": round(decoded_right / max(matched, 1), 4),
        "tiles": n_true,
        "wrong_shown_sure": wrong_sure,
        "right_flagged": right_flagged,
    }


def _tallies(photo: SeenPhoto, labels: np.ndarray) -> tuple[int, int, int]:
    """(tiles read right, tiles read, tiles labelled) of ``photo`` decoded as ``labels``; a tile
    read on a hidden one counts neither way."""
    shown = labels if photo.counted is None else labels[photo.counted]
    return sum((Counter(shown.tolist()) & Counter(photo.truth)).values()), len(shown), len(photo.truth)


def see_photo(
    image: np.ndarray, boxes: np.ndarray, labels: Sequence[int], kind: str = "table", hidden: np.ndarray | None = None,
) -> SeenPhoto:
    """Read a labelled photo end to end once (detector, reader) and match detections to labels;
    a detection on one of the ``hidden`` tiles (number not in view) that matches none counts neither way."""
    from vision.pipeline import see_tiles

    return _photo_of(see_tiles(image), np.asarray(boxes, np.float32).reshape(-1, 4), labels, kind, hidden)


def _photo_of(seen: SeenTiles, boxes: np.ndarray, labels: Sequence[int], kind: str, hidden: np.ndarray | None) -> SeenPhoto:
    """The :class:`SeenPhoto` of what :func:`vision.pipeline.see_tiles` saw, matched to the labels."""
    from vision.meld_grouping import group_into_melds

    found = seen.detections
    matched = np.full(len(found), -1)
    if len(found) and len(boxes):
        iou = box_iou(found.boxes, boxes)
        for d in np.argsort(-iou.max(axis=1)):
            g = int(np.argmax(iou[d]))
            if iou[d, g] >= MATCH_IOU:
                matched[d] = labels[g]
                iou[:, g] = 0.0
    counted = None if hidden is None else (matched >= 0) | ~on_hidden(found.boxes, hidden)
    return SeenPhoto(
        found, group_into_melds(found, kind), seen.reading.probs, seen.reading.embeddings, list(labels), matched, kind,
        counted, seen, boxes, hidden,
    )


def vouched(photo: SeenPhoto, profile: TileProfile) -> SeenPhoto:
    """The photo as :func:`vision.read` sees it with ``profile``: the boxes the gate dropped that the
    profile vouches for kept (:meth:`vision.pipeline.SeenTiles.vouched_by`)."""
    if photo.seen is None:
        return photo
    seen = photo.seen.vouched_by(profile)
    return photo if seen is photo.seen else _photo_of(seen, photo.truth_boxes, photo.truth, photo.kind, photo.hidden)


def reading_kind(scene: Scene) -> str:
    """How a player reads the scene: tables and grids as tables, racks and close-ups as racks."""
    return "rack" if scene.kind in ("rack", "closeup") else "table"


def _labelled(scene: Scene) -> tuple[np.ndarray, list[int], np.ndarray]:
    """The scene's tiles to read - only those whose number shows, as in the test sets - as (boxes,
    labels), and the boxes of the tiles whose number is hidden."""
    readable = [t for t in scene.tiles if t.number_visible >= MIN_NUMBER_VISIBLE]
    hidden = [t.box for t in scene.tiles if t.number_visible < MIN_NUMBER_VISIBLE] + list(scene.hidden)
    boxes = np.array([t.box for t in readable], np.float32).reshape(-1, 4)
    return boxes, [t.tile.index for t in readable], np.array(hidden, np.float32).reshape(-1, 4)


def _scene_photo(scene: Scene) -> SeenPhoto:
    """The scene read, only the tiles whose number shows to read (:func:`_labelled`)."""
    boxes, labels, hidden = _labelled(scene)
    return see_photo(scene.image, boxes, labels, reading_kind(scene), hidden)


def draws_a_note(image: np.ndarray, photo: SeenPhoto) -> bool:
    """Whether reading ``image`` (seen as ``photo``) says how to take a better photo: its kept tiles
    small or blurred (:meth:`vision.reading.PhotoLook.advice`, as :meth:`vision.reading.Reading.messages` says it)."""
    boxes = photo.detections.boxes
    return bool(PhotoLook(median_length(boxes), photo_blur(image, boxes)).advice())


def test_scene(
    kind: Edition, rng: np.random.Generator, holding: Tile | None = None, recipe: SceneRecipe = HELD_OUT_RECIPE
) -> Scene:
    """A photo of the edition ``kind`` as ``recipe`` (a held-out test set's) draws them (tables, racks,
    close-ups, grids; up to two distractors), or the first such photo that shows a tile ``holding``."""
    recipe = replace(recipe, editions=(kind.name,))
    while True:
        scene = recipe.compose(rng)
        if holding is None or any(t.tile == holding for t in scene.tiles):
            return scene


def calibration_scene(kind: Edition, rng: np.random.Generator, width: int = 1600, height: int = 1200) -> Scene:
    """The default layout of the edition ``kind`` on a random surface."""
    return lay_out_rows([list(r) for r in DEFAULT_LAYOUT.rows], kind, rng, width, height, table=None)


# --- the experiments ---------------------------------------------------------------------------


def calibration_stream(seed: int) -> np.random.Generator:
    """The calibration photos' own random stream beside a study's ``default_rng(seed)``: a photo the
    reader refuses is taken again, so calibration photos drawn from the test photos' stream would
    make the test photos depend on the reader, and two readers would be compared on other photos."""
    return np.random.default_rng([seed, 7])


def calibrate(kind: Edition, rng: np.random.Generator, attempts: int = 3) -> tuple[tuple[TileSample, ...], float, list[str]]:
    """One calibration photo's samples as a player gets them, the seconds it took, and the photos refused.

    A photo the app refuses (:class:`vision.calibration.CalibrationError`: a tile missed or found
    twice) is taken again in new light and from a new angle, at most ``attempts`` times.
    """
    refused: list[str] = []
    for _ in range(attempts):
        scene = calibration_scene(kind, rng)
        start = time.perf_counter()
        try:
            samples = collect_samples(scene.image, DEFAULT_LAYOUT).samples
        except CalibrationError as err:
            refused.append(str(err))
            continue
        return samples, time.perf_counter() - start, refused
    raise RuntimeError(f"{kind.name}: every calibration photo was refused: {refused}")


def _decoding(photo: SeenPhoto, probs: np.ndarray) -> Decoding:
    """The rule-aware decoding of ``photo`` as :func:`vision.read` decodes it: the labels, and each
    tile's confidence and flag (which count the reader's doubt that a box shows a tile at all)."""
    return decode_photo(probs, photo.groups, ReadingKind(photo.kind), STANDARD, tile_prob=_tile_prob(photo))


def _tile_prob(photo: SeenPhoto) -> np.ndarray | None:
    """Each detection's probability of being a tile at all, as decoding sees it (None: not kept)."""
    return None if photo.seen is None else photo.seen.reading.tile_prob


def _decoded(photo: SeenPhoto, probs: np.ndarray) -> np.ndarray:
    """Per detection, the tile index the rule-aware decoding reads (:func:`_decoding`)."""
    if not len(probs):
        return np.zeros(0, int)
    return np.array(_decoding(photo, probs).labels, int)


def _misread(photo: SeenPhoto, labels: np.ndarray) -> list[tuple[int, int]]:
    """(detection, true class) of each labelled tile read wrong."""
    return [(j, int(photo.matched[j])) for j in np.flatnonzero(photo.matched >= 0) if labels[j] != photo.matched[j]]


def _misread_with(photo: SeenPhoto, profile: TileProfile | None) -> list[tuple[int, int]]:
    """:func:`_misread` of ``photo`` decoded as read with ``profile`` adapting the reader (or none)."""
    probs = as_read(profile)(photo)[1]
    return _misread(photo, _decoded(photo, probs))


def misreads_of(target: int, photos: Sequence[SeenPhoto], profile: TileProfile | None) -> int:
    """Detected tiles of the class ``target`` read as something else, with ``profile`` (or none)."""
    return sum(true == target for photo in photos for _, true in _misread_with(photo, profile))


def _misread_in(reading, scene: Scene, target: int) -> list[int]:
    """Positions in ``reading`` of tiles of the class ``target`` (by their box in ``scene``) read as another."""
    truth = np.array([t.box for t in scene.tiles if t.tile.index == target], np.float32).reshape(-1, 4)
    boxes = np.array([t.box for t in reading.tiles], np.float32).reshape(-1, 4)
    if not len(truth) or not len(boxes):
        return []
    hit = box_iou(boxes, truth).max(axis=1) >= MATCH_IOU
    return [i for i, t in enumerate(reading.tiles) if hit[i] and t.tile.index != target]


def worst_class(photos: Sequence[SeenPhoto], profile: TileProfile | None) -> tuple[int | None, int]:
    """The class read wrong most often in ``photos`` (decoded, with ``profile``) and how often; (None, 0) if none."""
    wrong = Counter(true for photo in photos for _, true in _misread_with(photo, profile))
    return wrong.most_common(1)[0] if wrong else (None, 0)


def corrections_needed(
    kind: Edition, calibration: Sequence[TileSample], photos: Sequence[SeenPhoto], rng: np.random.Generator,
    new_photos: int = 4, limit: int = 8, recipe: SceneRecipe = HELD_OUT_RECIPE,
) -> dict:
    """How many Play-page corrections fix a class the reader keeps getting wrong, on new photos.

    The class: the one read wrong most often in ``photos`` with the calibration profile; when the
    profile reads every class right, the one read wrong most often without a profile, left out of
    the calibration (a tile the calibration photo lacked). The profile is saved to a store as
    ``rummikub calibrate`` saves it; then photos of the edition holding that class are read as the
    Play page reads them (:func:`vision.read` with the profile), each of its tiles read wrong is
    changed to the right tile and taught through :func:`app.tile_profiles.teach_profile` (the
    Play page's *Change* with the switch on), and the profile is loaded again from the store.
    After each photo, ``new_photos`` other photos holding the class (never corrected) are read.
    Reported: the class, how it was chosen, and per photo (corrections so far, misreads on the new
    photos); ``corrections``: how many it took until none was wrong (None: not within ``limit`` photos).
    """
    import vision
    from app.profile_store import ProfileStore
    from app.tile_profiles import teach_profile
    from vision.reader import load_reader, reader_fingerprint

    profile = TileProfile.from_samples("calibration", calibration)
    target, wrong = worst_class(photos, profile)
    base, chosen = list(calibration), "misread with the profile"
    if target is None:
        target, wrong = worst_class(photos, None)
        if target is None:
            return {"class": None, "corrections": 0}
        base, chosen = [s for s in calibration if s.tile.index != target], "misread without a profile, left out of it"
    tile = Tile.from_index(target)
    new = [_scene_photo(test_scene(kind, rng, tile, recipe)) for _ in range(new_photos)]
    with tempfile.TemporaryDirectory() as folder:
        profiles = ProfileStore(Path(folder))
        profiles.save("set", base, reader_fingerprint(load_reader()))
        profile = profiles.load("set").tile_profile()
        taught, curve = 0, [(0, misreads_of(target, new, profile))]
        for _ in range(limit):
            if curve[-1][1] == 0:
                break
            scene = test_scene(kind, rng, tile, recipe)
            reading = vision.read(scene.image, reading_kind(scene), profile=profile)
            changed = [((reading_kind(scene), i), tile) for i in _misread_in(reading, scene, target)]
            if teach_profile(profiles, "set", {reading_kind(scene): reading.samples}, changed) is not None:
                profile = profiles.load("set").tile_profile()
            taught += len(changed)
            curve.append((taught, misreads_of(target, new, profile)))
    return {
        "class": tile.name, "chosen": chosen, "wrong_in_test_photos": wrong,
        "without_profile_on_new_photos": misreads_of(target, new, None),
        "tiles_on_new_photos": int(sum((p.matched == target).sum() for p in new)),
        "curve": curve, "corrections": curve[-1][0] if curve[-1][1] == 0 else None,
    }


def synthetic_experiment(
    kind: Edition, seed: int, count: int, recipe: SceneRecipe = HELD_OUT_RECIPE,
    ink_settings: Sequence[tuple[float, float]] = (),
) -> dict:
    """One calibration photo (and a second), ``count`` test photos: every method scored, the shipped
    profile as the app reads with it, and also with its inks heard at each (weight, floor) of
    ``ink_settings``; then the corrections study."""
    rng, calibration = np.random.default_rng(seed), calibration_stream(seed)
    samples, seconds, refused = calibrate(kind, calibration)
    second, _, refused_second = calibrate(kind, calibration)
    photos, noted = [], []
    for _ in range(count):
        scene = test_scene(kind, rng, recipe=recipe)
        photos.append(_scene_photo(scene))
        noted.append(draws_a_note(scene.image, photos[-1]))
    profile = TileProfile.from_samples("one", samples)
    compared = methods(samples, augmented(samples, rng))
    scores = {name: score(photos, on_probs(adapt)) for name, adapt in compared.items()}
    scores["none, the photo's own inks (as read without a profile)"] = score(photos, as_read(None))
    scores["gated mix and vouching, without the inks"] = score([vouched(p, profile) for p in photos], on_probs(profile.adapt))
    for name, shipped in (("", profile), (", two calibration photos", TileProfile.from_samples("two", samples + second))):
        scores[f"gated mix, inks and vouching (shipped){name}"] = score([vouched(p, shipped) for p in photos], as_read(shipped))
    clear = [p for p, note in zip(photos, noted) if not note]
    without_note = f", the {len(clear)} of {len(photos)} photos that draw no note"
    scores["none, the photo's own inks" + without_note] = score(clear, as_read(None))
    scores["gated mix, inks and vouching (shipped)" + without_note] = score([vouched(p, profile) for p in clear], as_read(profile))
    for weight, floor in ink_settings:
        scores[f"gated mix, inks at weight {weight:g} floor {floor:g}, vouching"] = score(
            [vouched(p, profile) for p in photos], inks_heard(profile, weight, floor))
    return {
        "edition": kind.name,
        "calibration_seconds": round(seconds, 2),
        "calibration_photos_refused": refused + refused_second,
        "methods": scores,
        "corrections": corrections_needed(kind, samples, photos, rng, recipe=recipe),
    }


#: The shipped profile's row of the real experiment's tiles misread at the labelled boxes.
SHIPPED_AT_BOXES = "gated mix and inks (shipped)"


def real_experiment(real_root: Path, seed: int, profiles: int = 3) -> dict:
    """The training edition: profiles of one real training tile per class, on the validation split.

    ``profiles`` profiles are drawn (one random training tile per class each); every method is
    scored at the labelled boxes with each (tiles misread), and end to end with the first.
    """
    from training.evaluate import _gt_detections
    from training.real_data import load_real_split
    from vision.images import load_image
    from vision.reader import crop_views, load_reader, read_views

    reader = load_reader()
    rng = np.random.default_rng(seed)
    train = load_real_split(real_root, "train")
    by_class: dict[int, list[tuple[int, int]]] = {}
    for p, photo in enumerate(train):
        for t, tile in enumerate(photo.tiles):
            by_class.setdefault(tile.tile.index, []).append((p, t))
    drawn_samples = []
    for _ in range(profiles):
        samples = []
        for c, spots in sorted(by_class.items()):
            p, t = spots[int(rng.integers(len(spots)))]
            views = crop_views(load_image(train[p].image_path), [train[p].tiles[t].box], reader.imgsz)
            samples.append(TileSample(Tile.from_index(c), views[:, 0], read_views(views, reader).embeddings[0]))
        drawn_samples.append(samples)
    drawn = [methods(samples) for samples in drawn_samples]
    shipped = [TileProfile.from_samples(f"profile {k + 1}", samples) for k, samples in enumerate(drawn_samples)]
    first = shipped[0]
    valid = [photo for photo in load_real_split(real_root, "valid") if photo.tiles]
    misread = {name: [0] * profiles for name in [*drawn[0], SHIPPED_AT_BOXES]}
    end_to_end, tiles = [], 0
    for photo in valid:
        image = load_image(photo.image_path)
        truth = np.array([t.tile.index for t in photo.tiles])
        views = crop_views(image, _gt_detections(photo).boxes, reader.imgsz)
        seen = read_views(views, reader)
        tiles += len(truth)
        for k, compared in enumerate(drawn):
            for name, adapt in compared.items():
                misread[name][k] += int((np.argmax(adapt(seen.probs, seen.embeddings), axis=1) != truth).sum())
            inked = weigh_colours(shipped[k].adapt(seen.probs, seen.embeddings), ink_directions(views[INK_MARGIN]), shipped[k].inks)
            misread[SHIPPED_AT_BOXES][k] += int((np.argmax(inked, axis=1) != truth).sum())
        end_to_end.append(see_photo(image, np.array([t.box for t in photo.tiles], np.float32), list(truth)))
    return {
        "profile_classes": len(by_class),
        "tiles": tiles,
        "misread_at_labelled_boxes": misread,
        "end_to_end": {"none": score(end_to_end, on_probs(lambda probs, embeddings: probs)),
                       "profile": score([vouched(p, first) for p in end_to_end], as_read(first))},
    }


@dataclass(frozen=True)
class GateBox:
    """One box of a gate-study photo: what the gate and the profile see of it."""

    kept: bool  # kept by the gate
    tile: bool  # on a readable tile no kept box already lies on (a second box on one tile is not a tile)
    cosine: float  # to the profile's nearest class mean
    tile_prob: float  # the reader's P(tile)
    vouched: bool  # the profile keeps it (dropped boxes only)


#: How far a retake's camera moves: each corner of the frame by this share of its side (standard deviation).
RETAKE_MOVE = 0.02


def photographed_again(scene: Scene, rng: np.random.Generator) -> Scene:
    """The same table photographed again a moment later, as a player does every turn: the camera
    moved a little (a homography, each corner by :data:`RETAKE_MOVE`), other light (gain and a
    colour cast), sensor noise, JPEG again. A tile pushed mostly out of the frame is hidden."""
    height, width = scene.image.shape[:2]
    frame = np.float32([[0, 0], [width, 0], [width, height], [0, height]])
    moved = (frame + rng.normal(0, RETAKE_MOVE, (4, 2)) * [width, height]).astype(np.float32)
    homography = cv2.getPerspectiveTransform(frame, moved)
    image = cv2.warpPerspective(scene.image, homography, (width, height), borderMode=cv2.BORDER_REFLECT).astype(np.float32)
    image = image * rng.uniform(0.8, 1.15) + rng.normal(0, 8, 3) + rng.normal(0, 3, image.shape)
    image = cv2.imdecode(cv2.imencode(".jpg", np.clip(image, 0, 255).astype(np.uint8), [cv2.IMWRITE_JPEG_QUALITY, 88])[1], 1)

    def moved(corners: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(np.asarray(corners, np.float32).reshape(1, -1, 2), homography)[0]

    def box_of(points: np.ndarray) -> tuple[tuple[float, ...], float]:
        """The box of ``points`` (moved), clipped to the frame, and the share of it inside."""
        (x1, y1), (x2, y2) = points.min(axis=0), points.max(axis=0)
        clipped = (max(x1, 0.0), max(y1, 0.0), min(x2, width), min(y2, height))
        inside = max(clipped[2] - clipped[0], 0) * max(clipped[3] - clipped[1], 0) / max((x2 - x1) * (y2 - y1), 1e-9)
        return tuple(float(v) for v in clipped), inside

    tiles = []
    for placed in scene.tiles:
        corners = moved(placed.corners)
        box, inside = box_of(corners)
        tiles.append(replace(placed, corners=corners, box=box, number_visible=placed.number_visible if inside >= 0.7 else 0.0))
    def moved_box(box: tuple[float, ...]) -> tuple[float, ...]:
        x1, y1, x2, y2 = box
        return box_of(moved(np.float32([[x1, y1], [x2, y1], [x2, y2], [x1, y2]])))[0]

    hidden = [moved_box(box) for box in scene.hidden]
    distractors = tuple(moved_box(box) for box in scene.distractors)  # in the same order: the same objects
    return replace(scene, image=image, tiles=tuple(tiles), hidden=tuple(hidden), distractors=distractors)


#: A photo as some reading sees it, and its tiles' probabilities before and after the inks (:data:`Method`).
Read = tuple[SeenPhoto, np.ndarray, np.ndarray]


def _read_with(photo: SeenPhoto, profile: TileProfile | None) -> Read:
    """``photo`` as :func:`vision.read` sees it with ``profile`` (:func:`vouched`; or none) and its probabilities."""
    if profile is not None:
        photo = vouched(photo, profile)
    return (photo, *as_read(profile)(photo))


def _remembering(read: Read, memory: SessionMemory) -> Read:
    """``read`` with the session's ``memory`` heard, before and after the inks alike, as :func:`vision.read` hears it."""
    photo, plain, inked = read
    return photo, memory.adapt(plain, photo.embeddings), memory.adapt(inked, photo.embeddings)


def session_memory(photo: SeenPhoto, wrong: Sequence[tuple[int, int]]) -> SessionMemory:
    """The misreads ``wrong`` of ``photo`` (its row, the true class) corrected and remembered for the
    session, as the Play page remembers every *Change* (:class:`vision.session_memory.SessionMemory`)."""
    return SessionMemory().remembering(photo.embeddings, [(j, Tile.from_index(true)) for j, true in wrong])


def retake_study(
    kind: Edition, seed: int, count: int, recipe: SceneRecipe, remembered_from: Sequence[float] = (),
    memory_weights: Sequence[float] = (),
) -> dict:
    """Does a correction fix the tile the next time the table is photographed?

    Per photo (``recipe``'s, the edition ``kind``), read with a one-photo calibration profile;
    every tile read wrong is corrected through the Play page's code
    (:func:`app.tile_profiles.teach_profile`, into a copy of the profile); then the table is
    photographed again (:func:`photographed_again`) and read with the calibration profile alone,
    with the taught profile as the app loads it, and with the corrections put into the class means
    only (how profiles learnt from corrections before session 31); and with the corrections heard
    from each cosine of ``remembered_from`` (:attr:`TileProfile.remembered_from`). Also without a
    profile: the reader alone, and the photo's own misreads (read without a profile) corrected and
    remembered for the session (:func:`session_memory`); and the calibration profile's misreads so
    remembered beside it, alone and beside the taught profile. Reported per profile: F1 on the
    retaken photos, tiles read wrong, and of those, tiles of a class corrected in that photo; tiles
    read wrong and not flagged (shown as sure), and tiles read right but flagged.
    """
    from app.profile_store import ProfileStore
    from app.tile_profiles import teach_profile
    from vision.reader import load_reader, reader_fingerprint

    rng = np.random.default_rng(seed)
    calibration, _, _ = calibrate(kind, calibration_stream(seed))
    alone = TileProfile.from_samples("calibration", calibration)
    totals: dict[str, Counter] = {}
    for _ in range(count):
        scene = test_scene(kind, rng, recipe=recipe)
        first = _scene_photo(scene)
        seen, _, probs = _read_with(first, alone)
        labels = _decoded(seen, probs)
        wrong = _misread(seen, labels)
        samples = {"photo": [TileSample(Tile.from_index(int(k)), seen.seen.views[:, j], seen.embeddings[j]) for j, k in enumerate(labels)]}
        changed = [(("photo", j), Tile.from_index(true)) for j, true in wrong]
        with tempfile.TemporaryDirectory() as folder:
            store = ProfileStore(Path(folder))
            store.save("set", calibration, reader_fingerprint(load_reader()))
            teach_profile(store, "set", samples, changed)
            taught = store.load("set").tile_profile()
        corrections = [TileSample(tile, samples["photo"][j].crops, samples["photo"][j].embedding) for (_, j), tile in changed]
        again = _scene_photo(photographed_again(scene, rng))
        profiles = {
            "calibration only": alone,
            "corrections in the class means only": TileProfile.from_samples("means", [*calibration, *corrections]),
            "corrections remembered (shipped)": taught,
            **{f"corrections heard from cosine {c:g}": replace(taught, remembered_from=c) for c in remembered_from},
        }
        read = {name: _read_with(again, profile) for name, profile in profiles.items()}
        unprofiled = _misread(first, _decoded(first, as_read(None)(first)[1]))  # what a player without a profile corrects
        memory = session_memory(first, unprofiled)
        read["no profile"] = _read_with(again, None)
        beside = session_memory(seen, wrong)  # the calibration profile's misreads, remembered by the photo
        read["calibration only, corrections remembered for the session"] = _remembering(read["calibration only"], beside)
        shipped = read["corrections remembered (shipped)"]  # teaching on, and the session's memory
        read["corrections remembered (shipped) and for the session"] = _remembering(shipped, beside)
        read["no profile, corrections remembered for the session"] = _remembering(read["no profile"], memory)
        for w in memory_weights:
            read[f"no profile, remembered for the session at weight {w:g}"] = _remembering(read["no profile"], replace(memory, weight=w))
            read[f"corrections remembered (shipped) and for the session at weight {w:g}"] = _remembering(shipped, replace(beside, weight=w))
        for name, (read_again, plain_again, probs_again) in read.items():
            total = totals.setdefault(name, Counter())
            made = unprofiled if name.startswith("no profile") else wrong
            decided = _decided(read_again, plain_again, probs_again)
            decoding, flagged = decided.decoding, decided.flagged
            labels_again = np.array(decoding.labels, int)
            wrong_again = _misread(read_again, labels_again)
            hits, shown, truth = _tallies(read_again, labels_again)
            corrected = {true for _, true in made}
            total.update(corrected=len(made), wrong=len(wrong_again), tp=hits, read=shown, true=truth,
                         wrong_of_corrected_classes=sum(true in corrected for _, true in wrong_again),
                         wrong_shown_sure=sum(not flagged[j] for j, _ in wrong_again),
                         right_flagged=sum(flagged[j] for j in np.flatnonzero(read_again.matched >= 0)
                                           if labels_again[j] == read_again.matched[j]))
    return {name: {**dict(t), **{k: round(v, 4) for k, v in _prf(t["tp"], t["read"], t["true"]).items()}}
            for name, t in totals.items()}


def left_out_study(kind: Edition, seed: int, count: int, recipe: SceneRecipe) -> dict:
    """Is a tile the player added from a box the camera left out kept the next time the table is
    photographed?

    Per photo (``recipe``'s, the edition ``kind``, no profile): the boxes the gate dropped that the
    reading offers (:func:`vision.left_out.offered`) and that lie on a readable tile no kept box
    found are added by the player as the tiles they are, and remembered for the session as the Play
    page remembers them (:func:`app.tile_profiles.remember`: centred on the photo's tiles and
    itself); then the table is photographed again (:func:`photographed_again`) and read without
    and with that memory (:meth:`vision.pipeline.SeenTiles.remembered_by`, then heard as
    :func:`vision.read` hears it). Reported per reading: tiles right, read and labelled (F1); and
    the boxes the memory kept: on a readable tile, and on none.
    """
    from vision.left_out import offered

    rng = np.random.default_rng(seed)
    totals: dict[str, Counter] = {"without the memory": Counter(), "with the tiles added remembered": Counter()}
    for _ in range(count):
        scene = test_scene(kind, rng, recipe=recipe)
        first = _scene_photo(scene)
        seen = first.seen
        found = box_iou(seen.detections.boxes, first.truth_boxes).max(axis=0) >= MATCH_IOU if len(seen.detections) and len(
            first.truth_boxes) else np.zeros(len(first.truth_boxes), bool)
        added = []
        for i in offered(seen.dropped.boxes, seen.dropped_reading.tile_prob, seen.detections.boxes):
            if not len(first.truth_boxes):
                break
            iou = box_iou(seen.dropped.boxes[[i]], first.truth_boxes)[0]
            t = int(np.argmax(iou))
            if iou[t] >= MATCH_IOU and not found[t]:
                found[t] = True
                added.append((i, Tile.from_index(first.truth[t])))
        totals["with the tiles added remembered"].update(added=len(added))
        kept = seen.reading.embeddings
        memory = SessionMemory().remembering(
            np.concatenate([kept, seen.dropped_reading.embeddings[[i for i, _ in added]]]) if added else kept,
            [(len(kept) + k, tile) for k, (_, tile) in enumerate(added)],
        )
        again = _scene_photo(photographed_again(scene, rng))
        remembered = again.seen.remembered_by(memory) if again.seen is not None else None
        with_memory = again if remembered is None or remembered is again.seen else _photo_of(
            remembered, again.truth_boxes, again.truth, again.kind, again.hidden)
        reads = {
            "without the memory": _read_with(again, None),
            "with the tiles added remembered": _remembering(_read_with(with_memory, None), memory),
        }
        for name, (read_again, plain_again, probs_again) in reads.items():
            labels = np.array(_decided(read_again, plain_again, probs_again).decoding.labels, int)
            hits, shown, truth = _tallies(read_again, labels)
            totals[name].update(tp=hits, read=shown, true=truth)
        new = len(with_memory.detections) - len(again.detections)
        on_tiles = int((with_memory.matched[len(again.detections):] >= 0).sum()) if new else 0
        totals["with the tiles added remembered"].update(kept_by_memory=new, kept_on_tiles=on_tiles)
    return {name: {**dict(t), **{k: round(v, 4) for k, v in _prf(t["tp"], t["read"], t["true"]).items()}}
            for name, t in totals.items()}


def with_phantoms(recipe: SceneRecipe) -> SceneRecipe:
    """``recipe``'s photos (sizes, editions) as racks, close-ups and tables with the rack's end caps and
    three to eight distractors beside the tiles: where a phantom tile comes from."""
    return replace(recipe, kinds=(("closeup", 0.4), ("rack", 0.3), ("table", 0.3)), distractors=(3, 8), rack_ends=1.0)


def _on_no_tile(boxes: np.ndarray, photo: SeenPhoto) -> np.ndarray:
    """Mask of ``boxes`` that lie on no tile of ``photo``, labelled or hidden (IoU under 0.2 with
    each): a box on a tile that matches none (a loose or second box on it) is no phantom."""
    tiles = np.concatenate([np.reshape(photo.truth_boxes, (-1, 4)), np.reshape(photo.hidden, (-1, 4))])
    if not len(boxes) or not len(tiles):
        return np.ones(len(boxes), bool)
    return box_iou(boxes, tiles).max(axis=1) < 0.2


def with_dropped_non_tiles(photo: SeenPhoto) -> tuple[SeenPhoto, np.ndarray]:
    """``photo`` with the boxes the gate dropped that lie on no tile (:func:`_on_no_tile`) kept, as a
    phantom tile is kept on the real photos of other editions, and the mask of its boxes that lie on
    no tile (those, and any the gate kept)."""
    if photo.seen is not None:
        seen = photo.seen.keeping(_on_no_tile(photo.seen.dropped.boxes, photo))
        photo = _photo_of(seen, photo.truth_boxes, photo.truth, photo.kind, photo.hidden)
    return photo, _on_no_tile(photo.detections.boxes, photo)


def _lying_on(boxes: np.ndarray, area: Sequence[float]) -> np.ndarray:
    """Mask of ``boxes`` lying for the most part (half of the smaller box) on the box ``area``."""
    if not len(boxes):
        return np.zeros(0, bool)
    return box_overlap(np.reshape(boxes, (-1, 4)), np.reshape(np.asarray(area, np.float32), (1, 4)))[:, 0] >= 0.5


def _objects_under(boxes: np.ndarray, objects: Sequence[Sequence[float]]) -> list[int]:
    """Indices of the ``objects`` (a scene's distractors and rack ends) that one of ``boxes`` lies on."""
    return [k for k, area in enumerate(objects) if _lying_on(boxes, area).any()]


def _read_with_memory(photo: SeenPhoto, memory: SessionMemory) -> tuple[np.ndarray, np.ndarray]:
    """(labels, flagged) per detection of ``photo`` as :func:`vision.read` reads it without a profile,
    with the session's ``memory``: the changes heard, and a box like a removed one, or one the inks
    alone settled, flagged."""
    decided = _decided(*_remembering(_read_with(photo, None), memory))
    flagged = decided.flagged | memory.looks_removed(photo.embeddings)
    return np.array(decided.decoding.labels, int), flagged


def removal_study(
    kind: Edition, seed: int, count: int, recipe: SceneRecipe, removed_from: Sequence[float] = (),
    no_tile_from: Sequence[float] = (),
) -> dict:
    """Is a box the player removed as no tile flagged the next time the table is photographed, and
    what else is?

    Per photo (``recipe``'s with rack ends and distractors, :func:`with_phantoms`; the edition
    ``kind``; no profile): the synthetic photos hardly ever keep a non-tile as a tile, so the
    non-tiles the gate dropped are kept as well, standing in for the phantoms of real photos
    (:func:`with_dropped_non_tiles`). The player corrects every misread and removes every non-tile,
    through the Play page's own code (:func:`app.tile_profiles.remember`, so a second box on a tile
    is not remembered); the table is photographed again (:func:`photographed_again`). Counted on the
    retaken photo, so kept too: non-tiles, those flagged as like a removed box, the objects (a
    distractor, a rack's end) a removed box lay on that a box lies on again and those of them
    flagged (the same non-tile recognised), those shown as sure
    by the reading with the changes remembered only and with the removals too; and on the retaken
    photo as the app reads it (the gate's non-tiles left out): real tiles flagged as like a removed
    box, right tiles flagged and wrong tiles shown as sure with the changes only and with the
    removals too. With ``removed_from``, also the non-tiles and the real tiles flagged as like a
    removed box from each of these cosines (:attr:`SessionMemory.removed_from`).

    **Taught to a profile** (teaching on): a profile of one calibration photo of ``kind`` (drawn from
    a generator of its own, so the photos are those of the study without it) is taught the
    photo's removals through the Play page's own code (:func:`app.tile_profiles.teach_profile`, the
    profile saved and loaded again), and the retaken photo's non-tiles, objects and real tiles are
    counted as flagged by it (:meth:`TileProfile.looks_like_no_tile`): what a later session sees
    from its first photo. With ``no_tile_from``, also from each of these cosines.
    """
    from app.profile_store import ProfileStore
    from app.tile_profiles import remember, teach_profile
    from vision.reader import load_reader, reader_fingerprint

    rng = np.random.default_rng(seed)
    calibration, _, _ = calibrate(kind, calibration_stream(seed))
    reader = reader_fingerprint(load_reader())
    folder = tempfile.TemporaryDirectory()
    total: Counter = Counter()
    for number in range(count):
        scene = test_scene(kind, rng, recipe=with_phantoms(recipe))
        first, first_non_tiles = with_dropped_non_tiles(_scene_photo(scene))
        if not len(first.embeddings):
            continue
        labels = _decoded(first, as_read(None)(first)[1])
        samples = {"photo": [TileSample(Tile.from_index(int(k)), first.seen.views[:, j], first.embeddings[j],
                                        tuple(float(v) for v in first.detections.boxes[j])) for j, k in enumerate(labels)]}
        changed = [(("photo", j), Tile.from_index(true)) for j, true in _misread(first, labels)]
        removed = [("photo", int(j)) for j in np.flatnonzero(first_non_tiles)]
        changes_only = remember(SessionMemory(), samples, changed)
        memory = remember(SessionMemory(), samples, changed, removed)
        profiles = ProfileStore(Path(folder.name) / str(number))
        profiles.save("set", calibration, reader)
        teach_profile(profiles, "set", samples, [], removed)
        profile = profiles.load("set").tile_profile()
        total.update(removed=len(removed), remembered_removed=memory.removed_count, taught_removed=len(profile.not_tiles))

        def flagged_from(part: str, embeddings: np.ndarray, counted: np.ndarray) -> None:
            """The boxes of ``part`` (``counted``) flagged by the memory and by the profile from each cosine asked."""
            for c in removed_from:
                total[f"{part}_flagged_from_{c:g}"] += int((replace(memory, removed_from=c).looks_removed(embeddings) & counted).sum())
            for c in no_tile_from:
                total[f"{part}_flagged_by_profile_from_{c:g}"] += int(
                    (replace(profile, no_tile_from=c).looks_like_no_tile(embeddings) & counted).sum())

        retaken = photographed_again(scene, rng)
        again_as_read = _scene_photo(retaken)
        again, non_tiles = with_dropped_non_tiles(again_as_read)
        if len(again.embeddings):
            like_removed = memory.looks_removed(again.embeddings)
            by_profile = profile.looks_like_no_tile(again.embeddings)
            # the same object (a distractor or rack end) removed in the first photo, and seen again
            for k in _objects_under(first.detections.boxes[first_non_tiles], scene.distractors):
                on_it = non_tiles & _lying_on(again.detections.boxes, retaken.distractors[k])
                total.update(objects_removed_seen_again=int(on_it.any()),
                             objects_removed_recognised=int((on_it & like_removed).any()),
                             objects_removed_recognised_by_profile=int((on_it & by_profile).any()))
            total.update(non_tiles=int(non_tiles.sum()), non_tiles_flagged_as_removed=int((like_removed & non_tiles).sum()),
                         non_tiles_flagged_by_profile=int((by_profile & non_tiles).sum()))
            flagged_from("non_tiles", again.embeddings, non_tiles)
            for name, remembered in (("changes", changes_only), ("removals", memory)):
                total[f"non_tiles_shown_sure_{name}"] += int((~_read_with_memory(again, remembered)[1] & non_tiles).sum())
        photo = again_as_read
        if not len(photo.embeddings):
            continue
        tiles = photo.matched >= 0
        total.update(tiles=int(tiles.sum()), tiles_flagged_as_removed=int((memory.looks_removed(photo.embeddings) & tiles).sum()),
                     tiles_flagged_by_profile=int((profile.looks_like_no_tile(photo.embeddings) & tiles).sum()))
        flagged_from("tiles", photo.embeddings, tiles)
        for name, remembered in (("changes", changes_only), ("removals", memory)):
            read_as, flagged = _read_with_memory(photo, remembered)
            right = tiles & (read_as == photo.matched)
            total[f"right_flagged_{name}"] += int((flagged & right).sum())
            total[f"wrong_shown_sure_{name}"] += int((~flagged & tiles & ~right).sum())
    folder.cleanup()
    return dict(total)


def gate_study(kind: Edition, seed: int, count: int, recipe: SceneRecipe) -> list[GateBox]:
    """Every box of ``count`` test photos of ``kind``, with one calibration photo's profile: kept
    or dropped by the gate, on a tile or not, its cosine to the profile's nearest class mean and
    the reader's P(tile), and whether the profile vouches for it (:meth:`TileProfile.vouches_for`)."""
    from vision.pipeline import see_tiles

    rng = np.random.default_rng(seed)
    samples, _, _ = calibrate(kind, calibration_stream(seed))
    profile = TileProfile.from_samples(kind.name, samples)
    boxes: list[GateBox] = []
    for _ in range(count):
        scene = test_scene(kind, rng, recipe=recipe)
        seen = see_tiles(scene.image)
        truth, _, hidden = _labelled(scene)
        kept_on = set()
        for kept, found, reading in ((True, seen.detections, seen.reading), (False, seen.dropped, seen.dropped_reading)):
            if not len(found):
                continue
            iou = box_iou(found.boxes, truth) if len(truth) else np.zeros((len(found), 1))
            nearest = iou.argmax(axis=1)
            on_tile = iou.max(axis=1) >= MATCH_IOU
            off = ~on_hidden(found.boxes, hidden) | on_tile
            vouched = np.zeros(len(found), bool) if kept else profile.vouches_for(reading.tile_prob, reading.embeddings)
            cosine = profile.nearest_cosine(reading.embeddings)
            for i in np.flatnonzero(off):
                tile = bool(on_tile[i]) and int(nearest[i]) not in kept_on
                if kept and tile:
                    kept_on.add(int(nearest[i]))
                boxes.append(GateBox(kept, tile, float(cosine[i]), float(reading.tile_prob[i]), bool(vouched[i])))
    return boxes


def gate_summary(boxes: Sequence[GateBox]) -> dict[str, dict]:
    """Per part (kept / dropped, tile / not a tile): how many boxes, their cosine's 10/50/90th
    percentiles, and how many the profile vouches for."""
    summary = {}
    for kept in (True, False):
        for tile in (True, False):
            part = [b for b in boxes if b.kept == kept and b.tile == tile]
            cosine = np.array([b.cosine for b in part])
            summary[f"{'kept' if kept else 'dropped'} {'tile' if tile else 'not a tile'}"] = {
                "boxes": len(part),
                "cosine_10_50_90": np.percentile(cosine, [10, 50, 90]).round(3).tolist() if len(part) else None,
                "vouched_for": sum(b.vouched for b in part),
            }
    return summary


def time_12mp(kind: Edition, seed: int, attempts: int = 3) -> float:
    """Seconds from a 4000 x 3000 JPEG of the default layout to a profile (a refused photo is taken again)."""
    from vision.images import load_image

    rng = np.random.default_rng(seed)
    for _ in range(attempts):
        scene = calibration_scene(kind, rng, 4000, 3000)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "calibration.jpg"
            cv2.imwrite(str(path), scene.image, [cv2.IMWRITE_JPEG_QUALITY, 92])
            start = time.perf_counter()
            try:
                TileProfile.from_samples("timed", collect_samples(load_image(path), DEFAULT_LAYOUT).samples)
            except CalibrationError:
                continue
            return time.perf_counter() - start
    raise RuntimeError(f"{kind.name}: every 12 MP calibration photo was refused")


def _edition_number(kind: Edition) -> int:
    """A number of the edition's own, so that its photos do not change when other editions are chosen."""
    return sum(kind.name.encode())


def _ink_setting(text: str) -> tuple[float, float]:
    """``WEIGHT,FLOOR`` of ``--ink-settings``."""
    try:
        weight, floor = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected WEIGHT,FLOOR (two numbers), got {text!r}") from None
    if weight < 0 or floor < 0:
        raise argparse.ArgumentTypeError(f"a weight and a floor are not negative, got {text!r}")
    return weight, floor


def main(argv: Sequence[str] | None = None) -> int:
    from training.real_data import DEFAULT_REAL

    parser = argparse.ArgumentParser(prog="python -m training.evaluate_profiles", description=__doc__.split("\n")[0])
    parser.add_argument("--photos", type=int, default=10, help="test photos per edition")
    parser.add_argument("--seed", type=int, default=1, help="the method's settings were chosen on seed 0")
    parser.add_argument("--data", type=Path, default=DEFAULT_REAL, help="rummikub-real root")
    parser.add_argument("--skip-real", action="store_true", help="skip the real validation split")
    parser.add_argument("--skip-synthetic", action="store_true", help="skip the synthetic editions")
    parser.add_argument("--editions", nargs="*", type=edition, default=list(HELD_OUT_EDITIONS),
                        help="editions of datasets.synth.editions (default: the held-out ones)")
    parser.add_argument("--test-set", choices=sorted(HELD_OUT_SETS), default="held-out-editions",
                        help="draw the test photos as this held-out test set does (held-out-phone: 12 MP)")
    parser.add_argument("--json", type=Path, help="also write the full report here")
    parser.add_argument("--ink-settings", nargs="*", type=_ink_setting, default=[], metavar="WEIGHT,FLOOR",
                        help="also score the profile with its inks alone heard at these weights and floors (how the shipped ones were chosen)")
    parser.add_argument("--gate-study", action="store_true", help="only the study of the boxes the gate drops (5.)")
    parser.add_argument("--retakes", action="store_true", help="only the study of corrections on tables photographed again (6.)")
    parser.add_argument("--removals", action="store_true", help="only the study of removed boxes on tables photographed again (7.)")
    parser.add_argument("--left-out", action="store_true",
                        help="only the study of tiles added from boxes left out, on tables photographed again (8.)")
    parser.add_argument("--removed-from", nargs="*", type=float, default=[],
                        help="with --removals: also each of these cosines from which a box is like a removed one")
    parser.add_argument("--no-tile-from", nargs="*", type=float, default=[],
                        help="with --removals: also each of these cosines from which a box is like one a profile holds as no tile")
    parser.add_argument("--memory-weights", nargs="*", type=float, default=[],
                        help="with --retakes: also the session's memory mixed in at each of these weights")
    parser.add_argument("--remembered-from", nargs="*", type=float, default=[],
                        help="with --retakes: also each of these cosines from which a correction is heard")
    args = parser.parse_args(argv)
    if args.retakes:
        for kind in args.editions:
            result = retake_study(kind, args.seed * 100 + _edition_number(kind), args.photos, HELD_OUT_SETS[args.test_set],
                                  args.remembered_from, args.memory_weights)
            for name, t in result.items():
                print(f"{kind.name} {name:36s} retaken photos F1 {t['f1']:.4f} ({t['tp']} of {t['true']} tiles, {t['read']} read); "
                      f"read wrong {t['wrong']}, of a class corrected in that photo {t['wrong_of_corrected_classes']} "
                      f"(corrections made {t['corrected']}); wrong shown as sure {t['wrong_shown_sure']}, "
                      f"right flagged {t['right_flagged']}")
        return 0
    if args.left_out:
        for kind in args.editions:
            result = left_out_study(kind, args.seed * 100 + _edition_number(kind), args.photos, HELD_OUT_SETS[args.test_set])
            added = result["with the tiles added remembered"]
            print(f"{kind.name}: tiles added from the boxes left out {added.get('added', 0)}; on the retaken photos the "
                  f"memory kept {added.get('kept_by_memory', 0)} dropped boxes, {added.get('kept_on_tiles', 0)} of them on tiles")
            for name, t in result.items():
                print(f"{kind.name} {name:32s} retaken photos F1 {t['f1']:.4f} ({t.get('tp', 0)} of {t.get('true', 0)} tiles, "
                      f"{t.get('read', 0)} read)")
        return 0
    if args.removals:
        for kind in args.editions:
            t = removal_study(kind, args.seed * 100 + _edition_number(kind), args.photos, HELD_OUT_SETS[args.test_set],
                              args.removed_from, args.no_tile_from)
            print(f"{kind.name}: removed {t.get('removed', 0)} non-tiles ({t.get('remembered_removed', 0)} remembered); "
                  f"on the retaken photos non-tiles {t.get('non_tiles', 0)}, flagged as like a removed box "
                  f"{t.get('non_tiles_flagged_as_removed', 0)}; objects removed and boxed again "
                  f"{t.get('objects_removed_seen_again', 0)}, recognised {t.get('objects_removed_recognised', 0)}; shown as sure {t.get('non_tiles_shown_sure_changes', 0)} "
                  f"-> {t.get('non_tiles_shown_sure_removals', 0)}; tiles {t.get('tiles', 0)}, flagged as like a removed box "
                  f"{t.get('tiles_flagged_as_removed', 0)}, right flagged {t.get('right_flagged_changes', 0)} -> "
                  f"{t.get('right_flagged_removals', 0)}, wrong shown as sure {t.get('wrong_shown_sure_changes', 0)} -> "
                  f"{t.get('wrong_shown_sure_removals', 0)}")
            for c in args.removed_from:
                print(f"{kind.name}: from cosine {c:g}, flagged as like a removed box: non-tiles "
                      f"{t.get(f'non_tiles_flagged_from_{c:g}', 0)}, tiles {t.get(f'tiles_flagged_from_{c:g}', 0)}")
            print(f"{kind.name}: taught to a profile ({t.get('taught_removed', 0)} held as no tiles), flagged on the retaken "
                  f"photos: non-tiles {t.get('non_tiles_flagged_by_profile', 0)}, objects "
                  f"{t.get('objects_removed_recognised_by_profile', 0)}, tiles {t.get('tiles_flagged_by_profile', 0)}")
            for c in args.no_tile_from:
                print(f"{kind.name}: taught to a profile, from cosine {c:g}: non-tiles "
                      f"{t.get(f'non_tiles_flagged_by_profile_from_{c:g}', 0)}, tiles {t.get(f'tiles_flagged_by_profile_from_{c:g}', 0)}")
        return 0
    if args.gate_study:
        print(f"the profile vouches for a dropped box at P(tile) >= {VOUCH_TILE_PROB} and cosine >= {VOUCH_RECOGNISED}")
        for kind in args.editions:
            boxes = gate_study(kind, args.seed * 100 + _edition_number(kind), args.photos, HELD_OUT_SETS[args.test_set])
            for name, part in gate_summary(boxes).items():
                print(f"{kind.name} {name}: {part['boxes']} boxes, cosine 10/50/90 % {part['cosine_10_50_90']}"
                      + (f", vouched for: {part['vouched_for']}" if name.startswith("dropped") else ""))
        return 0
    report: dict = {"synthetic": [], "test_set": args.test_set}
    for kind in [] if args.skip_synthetic else args.editions:
        result = synthetic_experiment(
            kind, args.seed * 100 + _edition_number(kind), args.photos, HELD_OUT_SETS[args.test_set], args.ink_settings,
        )
        report["synthetic"].append(result)
        print(f"{kind.name}: calibration {result['calibration_seconds']} s, photos refused first: "
              f"{result['calibration_photos_refused']}; corrections {result['corrections']}")
        for name, m in result["methods"].items():
            print(f"  {name:48s} F1 {m['f1']:.4f} (P {m['precision']:.4f} R {m['recall']:.4f}), photos exact "
                  f"{m['photos_exact']:.2f}; detected {m['detected']:.4f} of {m['tiles']} tiles, of those read right "
                  f"{m['decoded_accuracy']:.4f} (classifier {m['classifier_accuracy']:.4f}); wrong shown as sure "
                  f"{m['wrong_shown_sure']}, right flagged {m['right_flagged']}")
        sys.stdout.flush()
    if not args.skip_real:
        real = real_experiment(args.data, args.seed)
        report["real"] = real
        print(f"real validation ({real['tiles']} tiles), profiles of one training tile per class ({real['profile_classes']}):")
        for name, counts in real["misread_at_labelled_boxes"].items():
            print(f"  {name:24s} tiles misread at the labelled boxes, per profile: {counts}")
        for key, m in real["end_to_end"].items():
            print(f"  end to end, {key}: F1 {m['f1']:.4f}, photos exact {m['photos_exact']:.3f}, classifier {m['classifier_accuracy']:.4f}")
    report["seconds_12mp"] = round(time_12mp(HELD_OUT_EDITIONS[0], args.seed), 2)
    print(f"calibration from one 12 MP JPEG: {report['seconds_12mp']} s")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
