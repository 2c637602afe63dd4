"""Synthetic table photos rendered at test time (no image files in the repository)."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from datasets.synth.scenes import Scene, compose_scene
from solver.tiles import ALL_NUMBERED, Tile, parse_tile

TABLE_SEED = 3


def table_scene(seed: int = TABLE_SEED) -> Scene:
    return compose_scene(np.random.default_rng(seed), width=960, height=720, kind="table")


def png_bytes(image: np.ndarray) -> bytes:
    ok, encoded = cv2.imencode(".png", image)
    assert ok
    return encoded.tobytes()


def step_photo(width: int, dark: int = 40, light: int = 220) -> np.ndarray:
    """A 64-row photo dark on its left half and light on its right: one sharp edge, for blur to widen."""
    image = np.full((64, width, 3), dark, np.uint8)
    image[:, width // 2:] = light
    return image


def edge_rise_px(image: np.ndarray) -> int:
    """Pixels over which the middle edge of a (blurred) :func:`step_photo` rises from 10 % to 90 %
    of the way between the levels beside it."""
    width = image.shape[1]
    profile = image.astype(float).mean(axis=(0, 2))
    near, far = width // 2 - width // 8, width // 2 + width // 8
    low, high = profile[near: width // 2 - width // 16].mean(), profile[width // 2 + width // 16: far].mean()
    rise = (profile[near:far] - low) / (high - low)
    return int(np.count_nonzero((rise > 0.1) & (rise < 0.9)))


def table_photo_png(seed: int = TABLE_SEED) -> bytes:
    return png_bytes(table_scene(seed).image)


def rows_photo(rows: list[list[str]], seed: int = 5, tile_height: int = 130, row_pitch: int = 260) -> np.ndarray:
    """Tiles laid upright in rows (one meld per row) on a plain wooden-looking table, 1280 x 960."""
    from datasets.synth.tiles import render_tile

    rng = np.random.default_rng(seed)
    canvas = np.clip(rng.normal((60, 100, 150), 8, (960, 1280, 3)), 0, 255).astype(np.uint8)
    y = 120
    for row in rows:
        x = 160
        for name in row:
            face = render_tile(parse_tile(name), rng, tile_height)
            h, w = face.shape[:2]
            alpha = face[..., 3:] / 255.0
            region = canvas[y : y + h, x : x + w]
            canvas[y : y + h, x : x + w] = (region * (1 - alpha) + face[..., :3] * alpha).astype(np.uint8)
            x += w + 3
        y += row_pitch
    return canvas


def tiles_absent_from(scene: Scene, count: int) -> tuple[Tile, ...]:
    """Rack tiles that cannot clash with the photo's tiles over the copy limits."""
    present = Counter(p.tile for p in scene.tiles)
    return tuple(t for t in ALL_NUMBERED if present[t] == 0)[:count]


def vision_missing() -> str | None:
    """Why real photo reading cannot run here (None when it can)."""
    try:
        import vision
        from vision.model_files import model_path
    except ImportError as err:
        return f"vision cannot be imported: {err}"
    if not callable(getattr(vision, "read", None)):
        return "vision.read is not available yet"
    for name in ("detector", "reader"):
        if not model_path(name).is_file():
            return f"the {name} model is not shipped ({model_path(name)}); see python -m training.export"
    return None


def seen_with_a_dropped_box(dim: int = 8):
    """What ``vision.pipeline.see_tiles`` might see: one box kept (red 5) and, beside it, one dropped
    by the gate (red 6, the reader 99 % sure it is a tile); and the two boxes' embeddings."""
    from vision.detections import Detections
    from vision.pipeline import SeenTiles
    from vision.reader import CropReading

    probs = np.full((2, 53), 1e-4)
    probs[0, parse_tile("r5").index] = probs[1, parse_tile("r6").index] = 1.0
    probs /= probs.sum(axis=1, keepdims=True)
    embeddings = np.eye(dim)[[0, 1]] * 5.0
    views = np.stack([np.full((2, 16, 16, 3), v, np.uint8) for v in (10, 20)], axis=1)  # (margins, n, s, s, 3)
    boxes = np.array([[100, 100, 140, 156], [142, 100, 182, 156]], np.float32)

    def reading(i: int) -> CropReading:
        return CropReading(probs[i : i + 1], np.array([0.99]), embeddings[i : i + 1])

    seen = SeenTiles(
        Detections(boxes[:1], np.array([0.9], np.float32)), views[:, :1], reading(0),
        Detections(boxes[1:], np.array([0.45], np.float32)), reading(1), views[:, 1:],
    )
    return seen, embeddings
