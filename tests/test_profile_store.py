"""Tile profiles on disk: the versioned file, safe names, damaged files, rebuilding for another reader."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.profile_store import CORRECTION, FORMAT, SUFFIX, VERSION, ProfileError, ProfileStore, safe_name
from solver.i18n import error_text
from solver.tiles import Tile
from vision.profiles import TileSample


def _samples(count: int = 5, seed: int = 0, dim: int = 8) -> list[TileSample]:
    rng = np.random.default_rng(seed)
    return [
        TileSample(Tile.from_index(i), rng.integers(0, 255, (4, 6, 6, 3), dtype=np.uint8), rng.normal(0, 1, dim), (1.0, 2.0, 3.0, 4.0))
        for i in range(count)
    ]


def test_a_saved_profile_reads_back_exactly(tmp_path):
    store = ProfileStore(tmp_path / "profiles")
    samples = _samples()
    saved = store.save("Grandma set", samples, reader="abc")
    loaded = store.load("grandma SET")  # names are matched without case
    assert loaded.name == "Grandma set" and loaded.readers == ("abc",) * 5 and loaded.origins == ("calibration",) * 5
    for a, b in zip(loaded.samples, samples):
        assert a.tile == b.tile and a.box == b.box
        assert np.array_equal(a.crops, b.crops) and np.allclose(a.embedding, b.embedding, atol=1e-6)
    assert saved.created == loaded.created
    assert store.path("Grandma set").parent == tmp_path / "profiles"
    assert [p.name for p in store.listing().profiles] == ["Grandma set"]


def test_saving_to_an_existing_profile_adds_the_tiles(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("set", _samples(3), reader="r1")
    stored = store.save("set", _samples(2, seed=1), reader="r2", origin=CORRECTION)
    assert len(stored.samples) == 5 and stored.origins[-2:] == (CORRECTION, CORRECTION)
    assert stored.readers == ("r1",) * 3 + ("r2",) * 2
    summary = store.listing().profiles[0]
    assert (summary.tiles, summary.kinds, summary.corrections) == (5, 3, 2)


@pytest.mark.parametrize(
    "name", ["", "   ", "../evil", "a/b", "a\\b", "x" * 41, "CON", "nul", ".hidden", "-flag", "tab\tname", "név:2"]
)
def test_unsafe_names_are_refused_and_reach_no_file(tmp_path, name):
    store = ProfileStore(tmp_path / "profiles")
    with pytest.raises(ProfileError):
        store.save(name, _samples(), reader="r")
    assert not (tmp_path / "profiles").exists() and list(tmp_path.iterdir()) == []


def test_safe_names_keep_letters_of_any_alphabet():
    assert safe_name("  Бабусин набір 2 ") == "Бабусин набір 2"
    assert safe_name("my_set-1") == "my_set-1"
    with pytest.raises(ProfileError) as caught:
        safe_name("a/b")
    assert "a/b" in error_text(caught.value, "ru")


def test_a_damaged_file_is_skipped_with_a_message_and_the_others_listed(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("good", _samples(), reader="r")
    (tmp_path / ("broken" + SUFFIX)).write_bytes(b"PK\x03\x04 not really a zip")
    (tmp_path / ("empty" + SUFFIX)).write_bytes(b"")
    np.savez(tmp_path / ("other" + SUFFIX), format=np.array("something else"))
    listing = store.listing()
    assert [p.name for p in listing.profiles] == ["good"]
    messages = sorted(str(e) for e in listing.skipped)
    assert len(messages) == 3 and all("is damaged or not a tile profile; it was skipped" in m for m in messages)
    assert any("broken" + SUFFIX in m for m in messages)
    with pytest.raises(ProfileError, match="damaged"):
        store.load("broken")


def test_a_file_from_a_newer_version_is_skipped_not_misread(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("new", _samples(), reader="r")
    path = store.path("new")
    with np.load(path) as data:
        arrays = dict(data)
    arrays["version"] = np.array(VERSION + 1)
    np.savez_compressed(path, **arrays)
    listing = store.listing()
    assert listing.profiles == () and "newer version" in str(listing.skipped[0])


def test_a_file_whose_parts_disagree_is_damaged(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("set", _samples(), reader="r")
    path = store.path("set")
    with np.load(path) as data:
        arrays = dict(data)
    meta = json.loads(str(arrays["meta"]))
    meta["origins"] = meta["origins"][:2]
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(path, **arrays)
    assert store.listing().profiles == () and len(store.listing().skipped) == 1
    assert str(arrays["format"]) == FORMAT


def test_delete_and_missing_profiles(tmp_path):
    store = ProfileStore(tmp_path)
    store.save("set", _samples(), reader="r")
    store.delete("SET")
    assert store.listing().profiles == ()
    with pytest.raises(ProfileError, match="no tile profile named 'set'"):
        store.delete("set")
    with pytest.raises(ProfileError, match="no tile profile named"):
        store.load("never made")
    with pytest.raises(ProfileError, match="no tiles"):
        store.save("set", [], reader="r")
    assert ProfileStore(tmp_path / "nowhere").listing().profiles == ()


def test_a_profile_rebuilds_the_embeddings_another_reader_made_from_the_kept_crops(tmp_path, monkeypatch):
    import vision.reader
    from vision.reader import CropReading

    store = ProfileStore(tmp_path)
    store.save("set", _samples(3), reader="current")
    stored = store.save("set", _samples(2, seed=1), reader="old", origin=CORRECTION)
    calls = []

    def read_views(views, reader):
        calls.append(views.shape)
        n = views.shape[1]
        return CropReading(np.full((n, 53), 1 / 53), np.ones(n), np.full((n, 8), 7.0))

    monkeypatch.setattr(vision.reader, "load_reader", lambda weights=None: object())
    monkeypatch.setattr(vision.reader, "reader_fingerprint", lambda reader: "current")
    monkeypatch.setattr(vision.reader, "read_views", read_views)
    profile = stored.tile_profile()
    assert calls == [(4, 2, 6, 6, 3)]  # only the two tiles the old reader embedded
    assert profile.size == 5 and profile.seen.sum() == 3
    old_tiles = [s.tile.index for s in stored.samples[3:]]
    assert np.allclose(profile.centre, np.mean(
        [np.mean([s.embedding for s in stored.samples[:3] if s.tile.index == c] + ([np.full(8, 7.0)] * old_tiles.count(c)), axis=0)
         for c in range(3)], axis=0,
    ))


def test_a_loaded_profile_remembers_its_corrections_one_by_one(tmp_path, monkeypatch):
    import vision.reader

    store = ProfileStore(tmp_path)
    store.save("set", _samples(4), reader="current")
    corrections = _samples(2, seed=2)
    stored = store.save("set", corrections, reader="current", origin=CORRECTION)
    monkeypatch.setattr(vision.reader, "load_reader", lambda weights=None: object())
    monkeypatch.setattr(vision.reader, "reader_fingerprint", lambda reader: "current")
    profile = stored.tile_profile()
    assert profile.size == 6 and profile.exemplar_labels.tolist() == [s.tile.index for s in corrections]
    centred = np.stack([s.embedding for s in corrections]) - profile.centre
    assert np.allclose(profile.exemplars, centred / np.linalg.norm(centred, axis=1, keepdims=True))
    calibration_only = store.save("other", _samples(4), reader="current").tile_profile()
    assert calibration_only.exemplar_labels.size == 0
