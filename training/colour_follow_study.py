"""How many corrections a photo needs when a colour change is followed (a study, not a test)::

    python -m training.colour_follow_study [--editions E ...] [--seeds S ...] [--photos N] [--test-set T] [--json FILE]

A simulated player reads each photo of one edition (drawn as a held-out test set draws them,
:data:`training.evaluate_profiles.HELD_OUT_SETS`), then corrects the first tile read wrong, lets
:func:`vision.colour_follow.colour_followers` change the tiles that follow it, and so on until no
tile is wrong. Counted over the photos: tiles read wrong at first, corrections needed with the
followers and without (one per wrong tile), tiles a follower put right, and right tiles a follower
turned wrong (which the player must then correct, so they are among the corrections). The edition
kept for choosing (``selection-heavy``) is the default; the held-out editions are test photos.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Sequence

import numpy as np

from datasets.synth.editions import edition
from solver.rules import STANDARD
from solver.tiles import Tile
from training.evaluate_profiles import HELD_OUT_SETS, SeenPhoto, _decoding, _scene_photo, test_scene
from vision.colour_follow import colour_followers
from vision.detections import median_length


def corrections_needed(photo: SeenPhoto, follow: bool = True) -> Counter:
    """One photo corrected tile by tile, as above: its counts."""
    labels = np.array(_decoding(photo, photo.probs).labels, int) if len(photo.probs) else np.zeros(0, int)
    truth = photo.matched
    tile_px = median_length(photo.detections.boxes)
    counts = Counter(wrong=int(((truth >= 0) & (labels != truth)).sum()))
    corrected: set[int] = set()  # by the player
    fixed: set[int] = set()  # tiles that never follow: those the player set, and those that followed once
    while True:
        wrong = [j for j in np.flatnonzero(truth >= 0) if labels[j] != truth[j] and j not in corrected]
        if not wrong:
            return counts
        j = int(wrong[0])
        counts["corrections"] += 1
        new = Tile.from_index(int(truth[j]))
        followers = colour_followers(photo.probs, labels, j, new, fixed, tile_px, STANDARD) if follow else ()
        labels[j] = new.index
        corrected.add(j)
        fixed.add(j)
        for i, tile in followers:
            fixed.add(i)  # moved once by following, as the app marks it: it never follows back
            if truth[i] >= 0:
                counts["put_right"] += int(tile.index == truth[i])
                counts["turned_wrong"] += int(labels[i] == truth[i])
            labels[i] = tile.index


def study(kind_name: str, seed: int, count: int, test_set: str) -> dict:
    """Per method (followers on, off), the counts over ``count`` photos of the edition ``kind_name``."""
    kind, rng = edition(kind_name), np.random.default_rng(seed)
    totals = {"followed": Counter(), "one by one": Counter()}
    for _ in range(count):
        photo = _scene_photo(test_scene(kind, rng, recipe=HELD_OUT_SETS[test_set]))
        totals["followed"].update(corrections_needed(photo, follow=True))
        totals["one by one"].update(corrections_needed(photo, follow=False))
    return {name: dict(t) for name, t in totals.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("::")[0])
    parser.add_argument("--editions", nargs="*", default=["selection-heavy"], help="editions of datasets.synth.editions")
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 2])
    parser.add_argument("--photos", type=int, default=20, help="photos per edition and seed")
    parser.add_argument("--test-set", choices=sorted(HELD_OUT_SETS), default="held-out-phone",
                        help="draw the photos as this held-out test set does (held-out-phone: 12 MP)")
    parser.add_argument("--json", help="also write the report here")
    args = parser.parse_args(argv)
    report = {}
    for name in args.editions:
        for seed in args.seeds:
            key = f"{name} seed {seed} {args.test_set}"
            report[key] = study(name, seed, args.photos, args.test_set)
            print(key, json.dumps(report[key]), flush=True)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
