"""The report's charts as inline SVG: ROC curve, score histogram per gold label, calibration. Numbers only
reach the markup (no text of a case), so the SVG is safe to embed as it is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from courtroom.evaluate.results import ResultRow

FAIL_COLOUR = "#c62828"
PASS_COLOUR = "#1a7f37"
LINE_COLOUR = "#4a7bd0"
TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


@dataclass(frozen=True)
class Frame:
    """A square plot area with both axes from 0 to 1 (the y axis may be scaled to a maximum count)."""

    size: int = 260
    pad: int = 36

    @property
    def inner(self) -> int:
        return self.size - 2 * self.pad

    def x(self, value: float) -> float:
        return self.pad + value * self.inner

    def y(self, value: float) -> float:
        return self.pad + (1 - value) * self.inner

    def open(self, chart_id: str, label: str, x_label: str, y_label: str, y_top: float = 1.0,
             y_ticks: Sequence[float] = TICKS) -> list[str]:
        """The SVG's opening: frame, ticks on both axes (the y axis from 0 to `y_top`), axis labels."""
        s, p, n = self.size, self.pad, self.inner
        parts = [f'<svg id="{chart_id}" xmlns="http://www.w3.org/2000/svg" width="{s}" height="{s}" '
                 f'role="img" aria-label="{label}">',
                 f'<rect x="{p}" y="{p}" width="{n}" height="{n}" fill="#fafafa" stroke="#999"/>']
        for t in TICKS:
            parts.append(f'<line x1="{self.x(t):.1f}" y1="{p + n}" x2="{self.x(t):.1f}" y2="{p + n + 4}" '
                         f'stroke="#999"/><text class="tick" x="{self.x(t):.1f}" y="{p + n + 14}" '
                         f'font-size="9" text-anchor="middle">{t:g}</text>')
        for tick in y_ticks:
            y = self.y(tick / y_top)
            parts.append(f'<line x1="{p - 4}" y1="{y:.1f}" x2="{p}" y2="{y:.1f}" stroke="#999"/><text '
                         f'class="tick" x="{p - 6}" y="{y + 3:.1f}" font-size="9" '
                         f'text-anchor="end">{tick:g}</text>')
        parts.append(f'<text x="{p + n / 2}" y="{s - 4}" font-size="11" '
                     f'text-anchor="middle">{x_label}</text>')
        parts.append(f'<text x="10" y="{p + n / 2}" font-size="11" text-anchor="middle" '
                     f'transform="rotate(-90 10 {p + n / 2})">{y_label}</text>')
        return parts


def _judged(rows: Sequence[ResultRow]) -> list[ResultRow]:
    return [r for r in rows if r.score is not None and r.gold in ("PASS", "FAIL") and not r.error]


def roc_points(rows: Sequence[ResultRow]) -> list[tuple[float, float]]:
    """(false positive rate, true positive rate) at every threshold on the score; empty when a label is
    missing."""
    judged = sorted(_judged(rows), key=lambda r: -r.score)
    positives = sum(r.gold == "FAIL" for r in judged)
    negatives = len(judged) - positives
    if not positives or not negatives:
        return []
    points, tp, fp = [(0.0, 0.0)], 0, 0
    for i, row in enumerate(judged):
        tp += row.gold == "FAIL"
        fp += row.gold == "PASS"
        if i + 1 == len(judged) or judged[i + 1].score != row.score:
            points.append((fp / negatives, tp / positives))
    return points


def roc_svg(rows: Sequence[ResultRow], auroc: float | None, chart_id: str = "roc",
            frame: Frame = Frame()) -> str:
    """The ROC curve of the score (FAIL positive), with the chance diagonal and the AUROC."""
    parts = frame.open(chart_id, "ROC curve", "false positive rate", "true positive rate")
    parts.append(f'<line x1="{frame.x(0)}" y1="{frame.y(0)}" x2="{frame.x(1)}" y2="{frame.y(1)}" '
                 'stroke="#bbb" stroke-dasharray="4"/>')
    points = roc_points(rows)
    if points:
        path = " ".join(f"{frame.x(x):.1f},{frame.y(y):.1f}" for x, y in points)
        parts.append(f'<polyline class="curve" points="{path}" fill="none" stroke="{LINE_COLOUR}" '
                     'stroke-width="2"/>')
    caption = ("no scores with both labels" if not points else f"AUROC {auroc:.3f}"
               if auroc is not None else "")
    parts.append(f'<text x="{frame.x(0.97)}" y="{frame.y(0.05)}" font-size="11" '
                 f'text-anchor="end">{caption}</text>')
    parts.append("</svg>")
    return "".join(parts)


def count_axis(most: int, ticks: int = 4) -> tuple[int, list[int]]:
    """An axis of counts up to at least `most`: its top, and at most `ticks` whole steps of 1, 2, 5, 10, 20
    ..."""
    step = next(s * 10**e for e in range(len(str(most))) for s in (1, 2, 5) if s * 10**e * ticks >= most)
    top = -(-most // step) * step
    return top, list(range(0, top + 1, step))


def histogram_svg(rows: Sequence[ResultRow], bins: int = 10, chart_id: str = "histogram",
                  frame: Frame = Frame()) -> str:
    """How the score is spread for gold FAIL and gold PASS cases (side by side in each bin), with counts."""
    judged = _judged(rows)
    counts = {label: [0] * bins for label in ("FAIL", "PASS")}
    for row in judged:
        counts[row.gold][min(int(row.score * bins), bins - 1)] += 1
    top, ticks = count_axis(max([1, *counts["FAIL"], *counts["PASS"]]))
    parts = frame.open(chart_id, "score histogram per gold label", "score", "cases", y_top=top, y_ticks=ticks)
    width = frame.inner / bins / 2
    for label, colour, offset in (("FAIL", FAIL_COLOUR, 0), ("PASS", PASS_COLOUR, 1)):
        for b, count in enumerate(counts[label]):
            if not count:
                continue
            x = frame.x(b / bins) + offset * width
            y = frame.y(count / top)
            parts.append(f'<rect class="bar {label.lower()}" x="{x:.1f}" y="{y:.1f}" width="{width - 1:.1f}" '
                         f'height="{frame.y(0) - y:.1f}" fill="{colour}" fill-opacity="0.75"><title>gold '
                         f'{label}, score {b / bins:.1f}-{(b + 1) / bins:.1f}: {count} cases</title></rect>')
    for i, (label, colour) in enumerate((("gold FAIL", FAIL_COLOUR), ("gold PASS", PASS_COLOUR))):
        y = frame.pad + 12 + 14 * i
        parts.append(f'<rect x="{frame.x(0.04)}" y="{y - 8}" width="9" height="9" fill="{colour}"/>'
                     f'<text x="{frame.x(0.04) + 13}" y="{y}" font-size="10">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)


def calibration_svg(rows: Sequence[ResultRow], bins: int = 10, chart_id: str = "calibration",
                    frame: Frame = Frame()) -> str:
    """Reliability diagram: the observed share of gold FAIL per bin of the score, each bin's count beside
    it."""
    judged = _judged(rows)
    parts = frame.open(chart_id, "calibration plot", "score", "observed FAIL share")
    parts.append(f'<line x1="{frame.x(0)}" y1="{frame.y(0)}" x2="{frame.x(1)}" y2="{frame.y(1)}" '
                 'stroke="#bbb" stroke-dasharray="4"/>')
    for b in range(bins):
        members = [r for r in judged if min(int(r.score * bins), bins - 1) == b]
        if not members:
            continue
        x = sum(r.score for r in members) / len(members)
        y = sum(r.gold == "FAIL" for r in members) / len(members)
        radius = 3 + min(9, len(members) ** 0.5)
        cx, cy = frame.x(x), frame.y(y)
        parts.append(f'<circle class="bin" cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" fill="{LINE_COLOUR}" '
                     f'fill-opacity="0.7"><title>{len(members)} cases, mean score {x:.2f}, FAIL share '
                     f'{y:.2f}</title></circle><text class="count" x="{cx:.1f}" y="{cy - radius - 2:.1f}" '
                     f'font-size="9" text-anchor="middle">{len(members)}</text>')
    parts.append("</svg>")
    return "".join(parts)
