"""Rule-aware decoding: from per-tile probabilities to the most probable reading the rules allow.

The classifier names each tile on its own. The rules know more: a photo holds at most
``rules.copies`` of each tile and ``rules.jokers`` jokers, and between turns every meld on the
table is valid. Decoding combines both, exactly but within bounds:

1. For each table meld, readings are enumerated best-first (a heap over the product of each
   tile's top-k labels) down to a probability window below the most probable reading. A valid
   reading (:func:`solver.check_meld`) replaces an invalid most-probable one only when it is at
   least ``repair_ratio`` times as probable: a strong reading is never overruled. The valid
   readings found also give each tile's confidence under the rules (its posterior marginal).
2. One reading per meld and one label per loose tile are then chosen together (CP-SAT, exact)
   to respect the copy limits, again only among readings within ``repair_ratio`` of each unit's
   best; copies that cannot be resolved that way are reported, not guessed away.

A tile whose label differs from its classifier argmax is *corrected*; a tile whose final
confidence stays below ``uncertain_below`` is *uncertain* and goes to the user with its
alternatives. A joker is never surer than the classifier says (:func:`_joker_evidence`): the
rules can explain any misread by a joker, since it fits every meld. A tile's confidence is the
probability that the box shows *that tile*, so it also counts the chance that the box shows no
tile at all (``tile_prob``, the reader's ``not-tile`` class): a patch of wood the reader half
believes is a tile is not shown as a sure joker. Everything is a pure function of numpy arrays
and the rule set.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from solver.melds import check_meld
from solver.rules import STANDARD, RuleSet
from solver.tiles import JOKER_INDEX, NUM_KINDS, Tile


class DecodingError(ValueError):
    """The probabilities or melds handed to the decoder are inconsistent."""


@dataclass(frozen=True)
class DecodingSettings:
    """The decoder's bounds. ``uncertain_below`` is measured (see below); the others are fixed a
    priori. None is tuned on the real validation photos or on a test set."""

    #: A rule-consistent reading replaces the classifier's when at least this probable relative to it.
    repair_ratio: float = 0.1
    #: Final confidence below this marks a tile for the user to confirm. Set by
    #: ``python -m training.calibrate`` on the seeded calibration photos of the training editions
    #: (not a test set): the lowest threshold that flags 90 % of the wrong tiles read there *and* on
    #: an edition no model was trained on (``selection-unseen``; the training editions understate the
    #: doubt on a set the reader never saw, which every player's set is). **0.88** with
    #: models/reader-wide-back.pt (session 45: the calibration sets alone 0.79, the unseen edition 0.88;
    #: 92.7 % of wrong and 12.6 % of right tiles flagged on them all together). 0.89 with
    #: models/reader-phone.pt (session 40: the calibration sets alone 0.68, the unseen edition 0.89;
    #: 95.4 % of wrong and 15.4 % of right tiles flagged on them all together). 0.90 with
    #: models/reader-masked.pt (session 19: the calibration sets alone 0.69, the unseen edition
    #: 0.90 for 18 of its 19 wrong tiles; 95.7 % of wrong and 17.5 % of right tiles flagged on them
    #: all together). 0.84 in session 18 (the calibration sets alone 0.71, the unseen edition 0.84; on the five calibration and
    #: selection sets 38 wrong tiles shown as sure against 45 at 0.80, and 2.5-3 points more of the
    #: right tiles flagged; ``models/reader.md``). Kept at 0.80
    #: in session 17 although the calibration sets then gave 0.71 (jokers 0.94): behind the finer
    #: detector pass the selection sets showed 47 of 363 wrong tiles as sure at 0.71 against 33 at
    #: 0.80 (the calibration sets' training editions understate the doubt on unfamiliar tiles). 0.80 with the
    #: stage-6 detector (session 16; 90.0 % of wrong tiles and 10.6 % of right ones). 0.81 with
    #: models/reader-more-photos3.pt (session 14; 90.2 % of wrong tiles and 12.0 % of right ones).
    #: 0.79 with models/reader-more-photos2.pt (session 13; 90.9 % of wrong tiles and 10.6 % of right ones).
    #: 0.73 with the stage-4 detector (session 12; 90.0 % of wrong tiles and 8.3 % of right ones). 0.74 with
    #: models/reader-more-photos.pt and the same pooled photos (90.4 % of wrong tiles and 9.5 % of
    #: right ones flagged there). 0.81 with models/reader-closeups.pt and the small and the 12 MP
    #: calibration photos pooled (90.2 % of wrong tiles and 14.0 % of right ones). 0.71 with
    #: models/reader-fonts.pt, the stage-3 detector with its coarse pass for big tiles, confidence
    #: counting the chance of no tile, only tiles whose number shows counted, and the small and
    #: the 12 MP calibration photos pooled (90.4 % of wrong tiles and 12.6 % of right ones flagged
    #: there; the small ones alone: 0.69, on the 12 MP ones it flags 77 %; 0.68 when tiles with
    #: their number hidden counted too: 90.6 % / 16.0 %); 0.65 with the stage-2 detector (90.1 % /
    #: 16.0 %); before the chance of no tile counted, 0.70 (90.1 % / 17.7 %); 0.77 with
    #: models/reader-editions.pt.
    uncertain_below: float = 0.88
    #: A tile read as a joker is shown as sure only from this confidence up (and never below
    #: ``uncertain_below``). A phantom joker is the costliest misread — 30 points on a score sheet,
    #: and a suggested move built on a tile that is not there — and it is how the reader misreads
    #: what it cannot name: a blank rack end, a patch of wood, a joker face of an edition it never
    #: saw all lack a number, as a joker does. Set by ``python -m training.calibrate`` from the
    #: threshold above: a joker may be wrong at most 7/30 as often as a tile (a tile's number is
    #: worth 7 on average, a joker costs 30), and every wrong joker of the calibration photos is
    #: flagged. 0.98 from the general 0.88 with models/reader-wide-back.pt (session 45: 3 of 3 wrong
    #: jokers, 19 % of the right ones flagged). 0.98 from the general 0.89 with models/reader-phone.pt (session 40: 6 of 6 wrong
    #: jokers, 26 % of the right ones flagged). 0.98 from the general 0.90 with models/reader-masked.pt (session 19: 8 of 8 wrong
    #: jokers, 38 % of the right ones flagged). 0.97 from the general 0.84 (session 18: 5 of 5 wrong jokers, 40 % of the right ones
    #: flagged on the calibration sets and the unseen edition). 0.96 with the stage-6 detector too (4 of 4 wrong jokers and 35.9 % of right ones
    #: flagged). 0.96 with models/reader-more-photos3.pt too (5 of 5 wrong jokers and 35.9 % of
    #: right ones flagged). 0.96 with models/reader-more-photos2.pt (4 of 4 wrong jokers and 35.9 % of right
    #: ones flagged there); 0.94 with reader-more-photos.pt (6 of 6, and 11 of 35 right ones; at
    #: 0.73, 6 and 3). A player's report of a phantom joker shown as sure at 0.80 is what it is for.
    joker_uncertain_below: float = 0.98
    #: A tile whose own blur (:func:`vision.sharpness.tile_blur`: its edges' width as a share of its
    #: length) reaches this is shown as unsure whatever its confidence (``inf``: never). Decoding does
    #: not see the photo; :func:`vision.read` and the evaluations apply it
    #: (:func:`vision.sharpness.blurred_tiles`). Set by ``python -m training.calibrate --blurred-tile
    #: 0.08 0.1 0.12 0.15 0.2 inf``: of the limits, the one whose threshold (the rule above, with the
    #: smeared tiles flagged anyway) flags the fewest right tiles. ``inf`` with
    #: models/reader-wide-back.pt (session 46): the unseen edition's wrong tiles are colours, not
    #: smears, so it needs 0.88 at every limit, and the limit only adds right tiles flagged (12.6 % →
    #: 12.8-17.7 %; wrong 92.7 % → 94.4-97.8 %).
    blurred_tile: float = math.inf
    #: What a tile short of the floors costs, in log-probability: a tile the table held at the last
    #: turn that the photo does not show as such is read so where that reading is at least half as
    #: probable as the photo's own (log 2). Not whenever ``repair_ratio`` allows (``inf``): a tile
    #: the detector missed leaves its kind short too, and a near tile was then read as it, wrongly.
    #: Chosen on turns of the edition kept for choosing (``python -m training.dealt_turn_study
    #: --next-turn``; session 36): at 1600 x 1200, log 1.5 to log 5 read 12-13 more tiles right than
    #: no floors, turning 0-1 more right tiles wrong, ``inf`` 9 more right and 5 more wrong; at 12 MP
    #: log 2 one more right, 2 more wrong (shown unsure). No gain on the held-out editions.
    floor_penalty: float = math.log(2)
    #: Labels considered per tile (its most probable ones).
    top_k: int = 4
    #: Readings of one meld examined at most (bounds the search on long doubtful melds).
    max_readings: int = 1000
    #: Readings this much less probable than the best one are not examined.
    window: float = 1e-4


DEFAULT_SETTINGS = DecodingSettings()


@dataclass(frozen=True)
class Decoding:
    """The decoded labels (tile indices 0..52) and, per tile, how sure the reading is."""

    labels: tuple[int, ...]
    confidence: tuple[float, ...]
    corrected: tuple[bool, ...]
    uncertain: tuple[bool, ...]
    #: Indices (into the meld list) of melds whose final reading is invalid.
    invalid_melds: tuple[int, ...]
    #: (tile index 0..52, count) for every tile read more often than the rules allow.
    excess_copies: tuple[tuple[int, int], ...]

    @property
    def tiles(self) -> tuple[Tile, ...]:
        return tuple(Tile.from_index(label) for label in self.labels)


@dataclass(frozen=True)
class _Candidate:
    """One way to read a unit (a meld or a loose tile): labels, log-probability, validity."""

    labels: tuple[int, ...]
    log_prob: float
    valid: bool


@lru_cache(maxsize=65536)
def _valid(labels: tuple[int, ...], rules: RuleSet) -> bool:
    return check_meld([Tile.from_index(i) for i in labels], rules).valid


def _best_first(log_probs: np.ndarray, settings: DecodingSettings) -> list[tuple[tuple[int, ...], float]]:
    """Readings of one meld, most probable first, within the window and the reading budget."""
    n = log_probs.shape[0]
    k = min(settings.top_k, log_probs.shape[1])
    order_array = np.argsort(-log_probs, axis=1, kind="stable")[:, :k]
    sorted_array = np.take_along_axis(log_probs, order_array, axis=1)
    best = float(sorted_array[:, 0].sum())
    # Python lists: the search below indexes single entries, which numpy does slowly.
    order, sorted_lp = order_array.tolist(), sorted_array.tolist()
    # A label further below its tile's best than the window allows can only be in readings under
    # the floor, which are never returned: each tile's search stops at its last label in reach.
    reach = math.log(settings.window) - 1e-9
    ranks_in_reach = [sum(1 for lp in row if lp - row[0] >= reach) for row in sorted_lp]
    floor = best + math.log(settings.window)
    start = (0,) * n
    heap = [(-best, start)]
    seen = {start}
    found = []
    while heap and len(found) < settings.max_readings:
        neg, ranks = heapq.heappop(heap)
        if -neg < floor:
            break
        found.append((tuple(order[i][r] for i, r in enumerate(ranks)), -neg))
        for i in range(n):
            if ranks[i] + 1 < ranks_in_reach[i]:
                nxt = ranks[:i] + (ranks[i] + 1,) + ranks[i + 1 :]
                if nxt not in seen:
                    seen.add(nxt)
                    score = -neg - sorted_lp[i][ranks[i]] + sorted_lp[i][ranks[i] + 1]
                    heapq.heappush(heap, (-score, nxt))
    return found


def _meld_candidates(
    log_probs: np.ndarray, rules: RuleSet, settings: DecodingSettings
) -> tuple[list[_Candidate], np.ndarray]:
    """Candidates for one meld and each tile's posterior over labels given that the meld is valid.

    The candidates are the most probable reading plus every valid reading within
    ``repair_ratio`` of it. The posterior (rows: the meld's tiles) is the classifier's own when
    no valid reading is in the window.
    """
    readings = _best_first(log_probs, settings)
    top_labels, top_lp = readings[0]
    limit = top_lp + math.log(settings.repair_ratio)
    candidates = [_Candidate(top_labels, top_lp, _valid(tuple(sorted(top_labels)), rules))]
    posterior = np.zeros_like(log_probs)
    total = 0.0
    for labels, lp in readings:
        if not _valid(tuple(sorted(labels)), rules):
            continue
        weight = math.exp(lp - top_lp)
        posterior[np.arange(len(labels)), labels] += weight
        total += weight
        if lp >= limit and labels != top_labels:
            candidates.append(_Candidate(labels, lp, True))
    if total > 0:
        posterior /= total
    else:
        posterior = np.exp(log_probs)
    return candidates, posterior


def _single_candidates(log_probs: np.ndarray, settings: DecodingSettings) -> list[_Candidate]:
    """Candidates for a loose tile: its labels within ``repair_ratio`` of its best (top-k)."""
    order = np.argsort(-log_probs, kind="stable")[: settings.top_k]
    limit = log_probs[order[0]] + math.log(settings.repair_ratio)
    return [_Candidate((int(i),), float(log_probs[i]), True) for i in order if log_probs[i] >= limit]


def _choose(
    units: Sequence[list[_Candidate]], rules: RuleSet, settings: DecodingSettings,
    floors: np.ndarray | None = None, floor_units: Sequence[bool] = (),
) -> list[int]:
    """Index of the chosen candidate per unit: most probable overall, invalid melds, excess copies
    and copies short of ``floors`` (counted over the units ``floor_units`` marks) penalised so that
    only readings within ``repair_ratio`` can fix them."""
    penalty = -math.log(settings.repair_ratio)
    scores = [[c.log_prob - (0.0 if c.valid else penalty) for c in unit] for unit in units]
    first = [int(np.argmax(s)) for s in scores]
    counts = np.zeros(NUM_KINDS, dtype=int)
    counted = np.zeros(NUM_KINDS, dtype=int)
    for u, (unit, choice) in enumerate(zip(units, first)):
        for label in unit[choice].labels:
            counts[label] += 1
            counted[label] += int(floors is not None and floor_units[u])
    caps = np.array([rules.max_count(Tile.from_index(i)) for i in range(NUM_KINDS)])
    short = floors is not None and bool((counted < floors).any())
    if ((counts <= caps).all() and not short) or all(len(u) == 1 for u in units):
        return first
    return _choose_with_copy_limits(units, scores, caps, floors, floor_units, settings.floor_penalty)


def _choose_with_copy_limits(
    units: Sequence[list[_Candidate]], scores: list[list[float]], caps: np.ndarray,
    floors: np.ndarray | None = None, floor_units: Sequence[bool] = (), floor_penalty: float = math.inf,
) -> list[int]:
    """One candidate per unit, as probable as possible, with each tile at most ``caps`` times and,
    over the units ``floor_units`` marks, at least ``floors`` times where it can: a small integer
    program for SCIP through OR-Tools' linear solver wrapper (CP-SAT's Python module imports
    pandas, 0.6 s of a new process's first photo)."""
    from ortools.linear_solver import pywraplp

    scale = 1000
    big = 10**7  # one excess copy costs more than any probability difference inside the window
    solver = pywraplp.Solver.CreateSolver("SCIP")
    if solver is None:  # pragma: no cover - OR-Tools wheels always ship SCIP
        raise DecodingError("no integer solver for the copy-limit assignment")
    picks = []
    usage: dict[int, list] = {}
    floor_usage: dict[int, list] = {}
    objective = solver.Objective()
    for u, unit in enumerate(units):
        vars_ = [solver.BoolVar(f"u{u}c{c}") for c in range(len(unit))]
        solver.Add(sum(vars_) == 1)
        picks.append(vars_)
        for var, cand, score in zip(vars_, unit, scores[u]):
            objective.SetCoefficient(var, int(round(score * scale)))
            for label in cand.labels:
                usage.setdefault(label, []).append(var)
                if floors is not None and floor_units[u]:
                    floor_usage.setdefault(label, []).append(var)
    for label, vars_ in usage.items():
        if len(vars_) > caps[label]:
            excess = solver.IntVar(0, len(vars_), f"excess{label}")
            solver.Add(sum(vars_) - excess <= int(caps[label]))
            objective.SetCoefficient(excess, -big)
    for label in ([] if floors is None else np.flatnonzero(floors)):
        vars_ = floor_usage.get(int(label), [])
        shortfall = solver.IntVar(0, int(floors[label]), f"short{label}")
        solver.Add(sum(vars_) + shortfall >= int(floors[label]))
        objective.SetCoefficient(shortfall, -big if math.isinf(floor_penalty) else -int(round(floor_penalty * scale)))
    objective.SetMaximization()
    solver.SetNumThreads(1)
    solver.SetTimeLimit(5000)
    status = solver.Solve()
    if status not in (pywraplp.Solver.OPTIMAL, pywraplp.Solver.FEASIBLE):
        raise DecodingError("copy-limit assignment found no solution")
    return [next(c for c, var in enumerate(vars_) if var.solution_value() > 0.5) for vars_ in picks]


def _joker_evidence(confidence: np.ndarray, labels: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """A joker's confidence is at most the classifier's own probability of the joker.

    A joker makes every meld valid, so a meld the classifier misread can always be "repaired"
    with one, at a posterior near 1; and with at most two jokers in a set at 30 points each, a
    phantom joker is the costliest misread. The rules may still choose a joker, but it then goes
    to the player to confirm unless the tile itself looks like one.
    """
    is_joker = labels == JOKER_INDEX
    return np.where(is_joker, np.minimum(confidence, probs[:, JOKER_INDEX]), confidence)


def flagged_uncertain(labels: np.ndarray, confidence: np.ndarray, settings: DecodingSettings = DEFAULT_SETTINGS) -> np.ndarray:
    """Mask of the tiles that go to the player to confirm: confidence under the threshold of what
    they were read as (:attr:`DecodingSettings.joker_uncertain_below` for a joker)."""
    labels, confidence = np.asarray(labels, dtype=np.int64), np.asarray(confidence, dtype=np.float64)
    joker_threshold = max(settings.joker_uncertain_below, settings.uncertain_below)
    return confidence < np.where(labels == JOKER_INDEX, joker_threshold, settings.uncertain_below)


def _tile_evidence(tile_prob: np.ndarray | None, n: int) -> np.ndarray:
    """Each box's probability of showing a tile, checked (ones when not given)."""
    if tile_prob is None:
        return np.ones(n)
    evidence = np.asarray(tile_prob, dtype=np.float64)
    if evidence.shape != (n,):
        raise DecodingError(f"expected {n} tile probabilities, got shape {evidence.shape}")
    if not np.isfinite(evidence).all() or (evidence < 0).any() or (evidence > 1).any():
        raise DecodingError("tile probabilities must lie in 0..1")
    return evidence


def decode(
    probs: np.ndarray,
    melds: Sequence[Sequence[int]] = (),
    rules: RuleSet = STANDARD,
    require_valid_melds: bool = True,
    settings: DecodingSettings = DEFAULT_SETTINGS,
    tile_prob: np.ndarray | None = None,
    floors: np.ndarray | None = None,
    floor_rows: np.ndarray | None = None,
) -> Decoding:
    """Decode ``probs`` (n x 53, rows in tile-index order) for tiles grouped into ``melds``.

    ``melds`` lists tile positions per meld (each tile in at most one); tiles in no meld are
    loose. With ``require_valid_melds`` (a table between turns) melds may be repaired to a
    nearly-as-probable valid reading; without it (a rack) only the copy limits apply.
    ``tile_prob`` (n,), each box's probability of showing a tile at all, scales the confidence
    (none: every box is a tile); it does not change the labels. ``floors`` (53,) asks for at least
    that many of each tile among the rows ``floor_rows`` (a mask; a meld's tiles all in or all
    out) — the tiles a table held at the last turn, which never leave it — as softly as the copy
    limits: only readings within ``repair_ratio`` can meet them.
    """
    probs = np.asarray(probs, dtype=np.float64)
    if probs.ndim != 2 or probs.shape[1] != NUM_KINDS:
        raise DecodingError(f"expected an (n, {NUM_KINDS}) probability array, got shape {probs.shape}")
    if not np.isfinite(probs).all() or (probs < 0).any():
        raise DecodingError("probabilities must be finite and non-negative")
    n = probs.shape[0]
    evidence = _tile_evidence(tile_prob, n)
    if n == 0:
        return Decoding((), (), (), (), (), ())
    sums = probs.sum(axis=1, keepdims=True)
    if (sums <= 0).any():
        raise DecodingError("every tile needs some probability mass")
    probs = probs / sums
    log_probs = np.log(np.clip(probs, 1e-12, None))

    groups = [list(m) for m in melds]
    flat = [i for m in groups for i in m]
    if any(not 0 <= i < n for i in flat):
        raise DecodingError(f"meld refers to a tile outside 0..{n - 1}")
    if len(set(flat)) != len(flat):
        raise DecodingError("a tile belongs to more than one meld")
    in_meld = set(flat)
    constrained = [m for m in groups if m] if require_valid_melds else []
    loose = [[i] for i in range(n) if not (require_valid_melds and i in in_meld)]

    units: list[list[_Candidate]] = []
    posterior = probs.copy()
    for members in constrained:
        candidates, meld_posterior = _meld_candidates(log_probs[members], rules, settings)
        units.append(candidates)
        posterior[members] = meld_posterior
    units.extend(_single_candidates(log_probs[m[0]], settings) for m in loose)
    members_of_unit = constrained + loose

    floor_units: list[bool] = []
    if floors is not None:
        floors = np.asarray(floors, dtype=np.int64)
        rows = np.zeros(n, bool) if floor_rows is None else np.asarray(floor_rows, bool)
        if floors.shape != (NUM_KINDS,) or (floors < 0).any() or rows.shape != (n,):
            raise DecodingError(f"floors are ({NUM_KINDS},) counts and floor_rows an ({n},) mask")
        if any(len({bool(rows[i]) for i in m}) > 1 for m in members_of_unit):
            raise DecodingError("a meld's tiles are all counted against the floors or none is")
        floor_units = [bool(rows[m[0]]) for m in members_of_unit]
    choice = _choose(units, rules, settings, floors, floor_units)
    labels = np.argmax(probs, axis=1)
    for unit, members, c in zip(units, members_of_unit, choice):
        labels[members] = unit[c].labels
        if not unit[c].valid:  # the rules could not explain this meld: trust the classifier alone
            posterior[members] = probs[members]
    argmax = np.argmax(probs, axis=1)
    confidence = _joker_evidence(posterior[np.arange(n), labels], labels, probs) * evidence
    invalid = tuple(
        g for g, members in enumerate(groups)
        if members and require_valid_melds and not _valid(tuple(sorted(int(labels[i]) for i in members)), rules)
    )
    counts = np.bincount(labels, minlength=NUM_KINDS)
    excess = tuple(
        (int(i), int(counts[i])) for i in range(NUM_KINDS) if counts[i] > rules.max_count(Tile.from_index(i))
    )
    return Decoding(
        labels=tuple(int(v) for v in labels),
        confidence=tuple(float(v) for v in confidence),
        corrected=tuple(bool(v) for v in labels != argmax),
        uncertain=tuple(bool(v) for v in flagged_uncertain(labels, confidence, settings)),
        invalid_melds=invalid,
        excess_copies=excess,
    )


def argmax_decoding(probs: np.ndarray, settings: DecodingSettings = DEFAULT_SETTINGS) -> Decoding:
    """The classifier alone (no rules): the baseline the evaluation compares against."""
    probs = np.asarray(probs, dtype=np.float64)
    labels = np.argmax(probs, axis=1) if len(probs) else np.zeros(0, dtype=int)
    confidence = probs[np.arange(len(labels)), labels] if len(probs) else np.zeros(0)
    return Decoding(
        labels=tuple(int(v) for v in labels),
        confidence=tuple(float(v) for v in confidence),
        corrected=(False,) * len(labels),
        uncertain=tuple(bool(v) for v in flagged_uncertain(labels, confidence, settings)),
        invalid_melds=(),
        excess_copies=(),
    )
