"""Tests that render the tile editions need the editions' fonts, as the browser test needs Chromium.

On Debian / Ubuntu they come with ``fonts-liberation`` (``.ci/run`` installs it); where they are
missing the generator refuses to draw those editions (:class:`datasets.synth.tiles.MissingFontError`)
and these tests are skipped, saying which fonts to install.
"""

from __future__ import annotations

import pytest

from datasets.synth.editions import CATALOGUE, SELECTION_ONLY, Edition
from datasets.synth.tiles import missing_fonts


def needs_fonts(*editions: Edition) -> pytest.MarkDecorator:
    """Skip unless every font of ``editions`` is installed."""
    missing = sorted({f for e in editions for f in missing_fonts(e)})
    return pytest.mark.skipif(bool(missing), reason=f"fonts not installed: {', '.join(missing)} (apt-get install fonts-liberation)")


#: For tests that render several editions (scenes, test sets, calibration photos of any edition);
#: the selection-only edition's fonts come with the wide pool's packages, and its own test says so.
needs_edition_fonts = needs_fonts(*(e for e in CATALOGUE if e.name not in SELECTION_ONLY))
