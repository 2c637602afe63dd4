"""Training configs: YAML files that may inherit from a base config (``base: other.yaml``).

A config names its base relative to its own folder; its keys override the base's, mappings merged
key by key, so a fine-tuning recipe states only what differs from the recipe it continues.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

__all__ = ["ConfigError", "load_config", "merge"]


class ConfigError(ValueError):
    """A training config is missing, malformed, or inherits in a circle."""


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """``base`` with ``override``'s keys on top; nested mappings are merged, everything else replaced."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def load_config(path: Path | str, _seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """The config at ``path`` with its ``base`` chain resolved (the ``base`` key itself removed)."""
    path = Path(path).resolve()
    if path in _seen:
        raise ConfigError(f"config {path} inherits from itself")
    try:
        config = yaml.safe_load(path.read_text())
    except FileNotFoundError as exc:
        raise ConfigError(f"config not found: {path}") from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"config {path} is not valid YAML: {exc}") from exc
    if not isinstance(config, dict):
        raise ConfigError(f"config {path} is not a mapping")
    base = config.pop("base", None)
    if base is None:
        return config
    return merge(load_config(path.parent / str(base), (*_seen, path)), config)
