"""The report's score histogram counts cases: its y axis is ticked at whole numbers a round step apart (it read
`0, 0, 1, 2, 2` for a top bin of 2), and its bars are drawn to the same scale."""

from __future__ import annotations

import re

import pytest

from courtroom.evaluate.results import ResultRow
from courtroom.report.charts import Frame, histogram_svg


def rows(scores: list[float], gold: str = "FAIL") -> list[ResultRow]:
    return [ResultRow(case_id=f"c{i}", source="s", gold=gold, label=gold, score=score) for i, score in enumerate(scores)]


def y_ticks(svg: str) -> list[tuple[float, str]]:
    """The y axis's ticks: (where, what they read), bottom up."""
    found = re.findall(r'<text class="tick" x="[0-9.]+" y="([0-9.]+)" font-size="9" text-anchor="end">([^<]*)</text>', svg)
    return sorted(((float(y), text) for y, text in found), reverse=True)


@pytest.mark.parametrize(("most", "reads"), [(1, ["0", "1"]), (2, ["0", "1", "2"]), (4, ["0", "1", "2", "3", "4"]),
                                            (7, ["0", "2", "4", "6", "8"]), (13, ["0", "5", "10", "15"]),
                                            (37, ["0", "10", "20", "30", "40"])])
def test_the_histogram_reads_whole_counts(most: int, reads: list[str]) -> None:
    svg = histogram_svg(rows([0.95] * most + [0.05]))
    ticks = y_ticks(svg)
    assert [text for _, text in ticks] == reads
    frame, top = Frame(), int(reads[-1])
    tallest = min(float(y) for y in re.findall(r'<rect class="bar fail" x="[0-9.]+" y="([0-9.]+)"', svg))
    assert tallest == pytest.approx(frame.y(most / top), abs=0.06)  # the bars read off the same axis
    assert ticks[-1][0] == pytest.approx(frame.y(1.0) + 3, abs=0.06)  # the top tick (its text 3 below its line)
