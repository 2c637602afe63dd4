"""Reading a photo of Rummikub tiles: find the tiles, group them into melds, name each one.

    from vision import read, annotate
    reading = read("table.jpg", kind="table")     # -> Reading
    reading.table_melds(), reading.rack(), reading.to_json()
"""

from vision.pipeline import annotate, read, warm_up
from vision.reading import ProblemKind, Reading, ReadingKind, ReadingProblem, ReadTile

__all__ = ["ProblemKind", "ReadTile", "Reading", "ReadingKind", "ReadingProblem", "annotate", "read", "warm_up"]
