"""A trial a person can check (#59): runs of a court whose moves rest on pieces read off the case, paired case by case
with runs of the `full` court of 795874c (texts and citations generated), every statement of every case charged and
tried (`--set indictment.threshold=0`; `experiments/queue-texts.sh`). Per run: the share of arguing moves (the
prosecutor's and the defender's) with a verified quote and citation or a read "none"; the share of trials in which two
roles wrote the same text; distinct texts; where the citations fall (no sentence position should take over half);
where gold spans exist, hit@1 and token F1 of the prosecution's quotes beside the clerk's own spans (the default
court's witnesses on the same cases, `--spans RUN`); model calls and seconds a case; balanced accuracy, and McNemar
against the paired run.

    PYTHONPATH=. python experiments/trial_texts.py NEW[=OLD] [NEW[=OLD] ...] [--spans RAGTRUTH_WITNESS_RUN ...] \
        [--out experiments/results/trial-texts.md]

A run's transcripts are needed (git keeps none: they hold the data's text); its committed rows give the verdicts."""

from __future__ import annotations

import argparse
import shlex
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from courtroom.engine.events import MoveEvent, RulingEvent
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.paired import mcnemar
from courtroom.evaluate.results import ResultRow
from courtroom.evaluate.spans import SpanCase, span_scores
from courtroom.evaluate.trial_stats import grounded
from courtroom.log.audit import Audit

SIDES = ("prosecutor", "defender")


@dataclass
class Texts:
    """What a run's trials wrote and cited."""

    trials: int = 0
    shared: int = 0
    texts: int = 0
    distinct: int = 0
    arguing: int = 0
    grounded: int = 0
    cited: Counter[int] | None = None
    none: int = 0
    sentences: Counter[int] | None = None
    """Context length of the cited moves (a citation's position is read against it)."""


def texts(audit: Audit, ids: Sequence[str]) -> tuple[Texts, dict[str, list[tuple[int, int, float]]]]:
    """The run's trials over `ids`, and each case's prosecution quotes as predicted spans (strongest charge first)."""
    found = Texts(cited=Counter(), sentences=Counter())
    seen: set[str] = set()
    quotes: dict[str, list[tuple[int, int, float]]] = {}
    for case_id in ids:
        events = audit.store.events(case_id)
        moves = [e for e in events if isinstance(e, MoveEvent)]
        suspect = {e.ruling.charge: e.ruling.p_hallucinated for e in events if isinstance(e, RulingEvent)}
        sentences = len(audit.context_sentences(events[0].case))
        for charge in sorted({m.charge for m in moves}):
            said = {}
            for m in (m for m in moves if m.charge == charge):
                text = " ".join(str(v) for k, v in m.payload.items() if k != "evidence").strip()
                said.setdefault(m.role, []).append(text)
                found.texts += 1
                seen.add(text)
                if m.role in SIDES:
                    found.arguing += 1
                    found.grounded += grounded(m)
                    if m.grounds is not None and m.grounds.sentence is not None:
                        found.cited[m.grounds.sentence] += 1
                        found.sentences[sentences] += 1
                    elif m.grounds is not None and m.grounds.reading != "generated":
                        found.none += 1
                    if m.role == "prosecutor" and m.grounds is not None and m.grounds.answer is not None:
                        offset = len(events[0].case.answer) - len(events[0].case.answer.lstrip())
                        quote = m.grounds.answer
                        quotes.setdefault(case_id, []).append(
                            (quote.start + offset, quote.end + offset, suspect.get(charge, 0.0)))
            found.trials += 1
            roles = list(said)
            found.shared += any(set(said[a]) & set(said[b]) for i, a in enumerate(roles) for b in roles[i + 1:])
    found.distinct = len(seen)
    for spans in quotes.values():
        spans.sort(key=lambda s: -s[2])
    return found, quotes


def pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def cell(rows: Sequence[ResultRow]) -> str:
    m = compute_metrics(rows)
    return f"{m.balanced_accuracy}"


def span_cell(cases: Sequence[SpanCase]) -> str:
    if not cases:
        return "-"
    s = span_scores(cases, resamples=200)
    return f"{s['hit@1']:.3f} / {s['token hallucinated answers']['f1']:.3f}"  # type: ignore[index]


def run_line(audit: Audit, rows: dict[str, ResultRow], ids: Sequence[str], label: str) -> tuple[str, list[SpanCase]]:
    """One row of the table: the run's trials over `ids`, and its prosecution quotes as span predictions."""
    t, quotes = texts(audit, ids)
    at = sorted(t.cited.items(), key=lambda kv: -kv[1])
    top = f"[{at[0][0]}] {pct(at[0][1], sum(t.cited.values()))}" if at else "-"
    chance = sum(count / n for n, count in t.sentences.items())  # citations of [1] were each sentence as likely
    first = f"{pct(t.cited[1], sum(t.cited.values()))} / {pct(chance, sum(t.sentences.values()))}"
    calls = sum(rows[i].model_calls for i in ids) / len(ids)
    seconds = sum(rows[i].seconds for i in ids) / len(ids)
    spans = [SpanCase(audit.store.case(i).answer, rows[i].gold_spans or [], quotes.get(i, []))
             for i in ids if rows[i].gold_spans]
    line = (f"| {audit.root.parent.name}/{audit.root.name} {label} | {len(ids)} | {t.trials} | "
            f"{pct(t.grounded, t.arguing)} of {t.arguing} | {pct(t.none, t.arguing)} | {pct(t.shared, t.trials)} | "
            f"{t.distinct} of {t.texts} | {top} | {first} | {span_cell(spans)} | {calls:.1f} | {seconds:.1f} | "
            f"{cell([rows[i] for i in ids])} |")
    return line, spans


def clerk_line(rows: dict[str, ResultRow], ids: Sequence[str], spans: Sequence[SpanCase],
               clerk_spans: dict[str, list[tuple[int, int, float]]]) -> str:
    """The clerk's own spans (the default court's witnesses) on the cases whose quotes `spans` scored."""
    gold = [i for i in ids if rows[i].gold_spans]
    clerk = [SpanCase(c.answer, c.gold, clerk_spans.get(i, [])) for i, c in zip(gold, spans)]
    return f"| (the clerk's spans, same cases) | | | | | | | | | {span_cell(clerk)} | | | |"


def pair_lines(new_dir: Path, old_dir: Path | None, clerk_spans: dict[str, list[tuple[int, int, float]]]) -> list[str]:
    """The run of this version on every case it judged; then, beside a run of 795874c, both on the cases both judged
    (McNemar on that pair). The clerk's spans under each run of this version, where gold spans exist."""
    new = Audit(new_dir)
    a = {r.case_id: r for r in new.rows()}
    judged = [i for i in a if not a[i].error]
    line, spans = run_line(new, a, judged, "(all)")
    lines = [line] + ([clerk_line(a, judged, spans, clerk_spans)] if clerk_spans and spans else [])
    if old_dir is None:
        return lines
    old = Audit(old_dir)
    b = {r.case_id: r for r in old.rows()}
    ids = [i for i in judged if i in b and not b[i].error]
    line, spans = run_line(new, a, ids, "(paired)")
    lines += [line, run_line(old, b, ids, "(paired)")[0]]
    lines += [clerk_line(a, ids, spans, clerk_spans)] if clerk_spans and spans else []
    test = mcnemar([a[i] for i in ids], [b[i] for i in ids])
    lines.append(f"| (pair: this version against 795874c) | | | | | | | | | | | | McNemar +{test.a_only_correct}/-"
                 f"{test.b_only_correct}, p = {test.p_value:.3f} |")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", help="NEW=OLD run directories (NEW alone: no pair)")
    parser.add_argument("--spans", nargs="*", default=[], help="runs of the default court whose spans are the clerk's "
                        "(each for the runs in its model's folder)")
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    clerk: dict[str, dict[str, list[tuple[int, int, float]]]] = {}  # the model's folder -> its witnesses' spans
    for run in args.spans:
        clerk.setdefault(Path(run).resolve().parent.name, {}).update(
            {r.case_id: list(r.spans or []) for r in Audit(run).rows()})
    lines = ["# A trial a person can check (#59)", "",
             f"`PYTHONPATH=. python experiments/trial_texts.py {shlex.join(sys.argv[1:] if argv is None else argv)}`",
             "", "Every statement of every case charged and tried. Each run of this version on every case it judged (all), then "
             "beside its run of 795874c on the cases both judged (paired; McNemar on those). Arguing "
             "moves: the prosecutor's and the defender's. Grounded: a verified quote and citation, or a read none. "
             "Top citation: the sentence position cited most, and its share of all citations; [1] cited / by chance: the share "
             "of citations that name the first sentence, and the share it would have were every sentence of a cited "
             "case's context as likely. Spans: hit@1 / token F1 "
             "of the prosecution's quotes against RAGTruth's gold spans (FAIL cases with spans), the clerk's own "
             "spans (the default court's witnesses) on the same cases beside them.", "",
             "| run | cases | trials | grounded | none read | trials sharing a text | distinct texts | top citation "
             "| [1] cited / by chance | spans hit@1 / F1 | calls/case | s/case | balanced accuracy |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for pair in args.pairs:
        new, _, old = pair.partition("=")
        lines += pair_lines(Path(new), Path(old) if old else None, clerk.get(Path(new).resolve().parent.name, {}))
    text = "\n".join(lines) + "\n"
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
