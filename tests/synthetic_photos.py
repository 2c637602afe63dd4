"""Synthetic table photos rendered at test time (no image files in the repository)."""

from __future__ import annotations

from collections import Counter

import cv2
import numpy as np

from datasets.synth.scenes import Scene, compose_scene
from solver.tiles import ALL_NUMBERED, Tile

TABLE_SEED = 3


def table_scene(seed: int = TABLE_SEED) -> Scene:
    return compose_scene(np.random.default_rng(seed), width=960, height=720, kind="table")


def png_bytes(image: np.ndarray) -> bytes:
    ok, encoded = cv2.imencode(".png", image)
    assert ok
    return encoded.tobytes()


def table_photo_png(seed: int = TABLE_SEED) -> bytes:
    return png_bytes(table_scene(seed).image)


def rows_photo(rows: list[list[str]], seed: int = 5, tile_height: int = 130, row_pitch: int = 260) -> np.ndarray:
    """Tiles laid upright in rows (one meld per row) on a plain wooden-looking table, 1280 x 960."""
    from datasets.synth.tiles import render_tile
    from solver.tiles import parse_tile

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
