"""What the witnesses and a fitted ruling are worth, out of fold, on the dev files (#31, #32).

    PYTHONPATH=. python experiments/witnesses.py RUN [RUN ...] --out experiments/results/MODEL/witnesses.md \
        [--ruling personas/courts/rulings/default.MODEL.yaml]

The runs are of the default court (every witness heard) on `halubench-dev.jsonl` and `ragtruth-spans-dev.jsonl`
with one model. The ruling is fitted on all their labelled cases together (`courtroom.calibrate.fit_ruling`: grouped
5-fold cross-validation, probes fitted inside each training fold) and every number below is out of fold:
- the ruling against the court's own verdicts in the runs (its grounding measure, no ruling: today's default court)
  and the no-model word-overlap rule, per dataset and source, with 95% bootstrap intervals and paired McNemar tests;
- leave one source out (HaluBench's five sources and RAGTruth's three tasks): each decided by a ruling fitted on the
  others only;
- the ablation: the ruling refitted without each witness in turn;
- pointing at the lie (cases with gold spans): the charged sentences and the witnesses' words (the span trial's
  words were compared here too, until the span trial was retired).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

from courtroom.calibrate.fit_ruling import Example, fit_ruling, leave_one_source_out
from courtroom.calibrate.ruling_report import ruling_table
from courtroom.calibrate.ruling_runs import calibrate_ruling, write_ruling
from courtroom.evaluate.confounds import overlap_only_rows
from courtroom.evaluate.metrics import compute_metrics
from courtroom.evaluate.paired import mcnemar, paired_bootstrap_difference
from courtroom.evaluate.results import ResultRow
from courtroom.evaluate.spans import paired_f1_difference, span_scores
from courtroom.log.audit import Audit


def dataset(source: str) -> str:
    return source.split("/")[0]


def group(source: str) -> str:
    """HaluBench's sources, RAGTruth's tasks."""
    return "/".join(source.split("/")[:2])


def rows_of(examples: list[Example], scores: np.ndarray, thresholds: np.ndarray) -> list[ResultRow]:
    return [ResultRow(case_id=e.case_id, source=group(e.source), gold="FAIL" if e.hallucinated else "PASS",
                      label="FAIL" if s >= t else "PASS", score=float(s)) for e, s, t in zip(examples, scores, thresholds)]


def metric_cell(rows: list[ResultRow]) -> str:
    if not rows:
        return "-"
    m = compute_metrics(rows)
    b, a = m.balanced_accuracy, m.auroc
    if b.value is None:
        return "-"
    interval = f" [{b.low:.3f}, {b.high:.3f}]" if b.low is not None else ""
    return f"{b.value:.3f}{interval} / " + (f"{a.value:.3f}" if a.value is not None else "-")


def span_cells(scores: dict[str, object]) -> str:
    """`span_scores` as table cells: token P | R | F1 [95%] on hallucinated answers | char F1 | hit@1 [95%]."""
    token, char = scores["token hallucinated answers"], scores["char hallucinated answers"]
    hit, hit95 = scores["hit@1"], scores["hit@1_95"]
    return (f"{token['precision']:.3f} | {token['recall']:.3f} | {token['f1']:.3f} "  # type: ignore[index]
            f"[{token['f1_95'][0]:.3f}, {token['f1_95'][1]:.3f}] | {char['f1']:.3f} | "  # type: ignore[index]
            f"{hit:.3f} [{hit95[0]:.3f}, {hit95[1]:.3f}]")  # type: ignore[index]


def paired_cell(a: list[ResultRow], b: list[ResultRow]) -> str:
    diff = paired_bootstrap_difference(a, b)
    test = mcnemar(a, b)
    if diff.difference is None:
        return "-"
    return f"{diff.difference:+.3f} [{diff.low:+.3f}, {diff.high:+.3f}], p = {test.p_value:.3g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--out", required=True)
    parser.add_argument("--ruling", help="Also write the ruling fitted on every case here.")
    parser.add_argument("--no-ablation", action="store_true")
    args = parser.parse_args()
    command = "PYTHONPATH=. python experiments/witnesses.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    fit, runs = calibrate_ruling(args.runs, command=command)
    examples = fit.examples
    thresholds = np.array([fit.ruling.family_for(e.family)[1].threshold for e in examples])
    ruled = rows_of(examples, fit.out_of_fold, thresholds)
    today = {r.case_id: r.model_copy(update={"source": group(r.source)}) for run in args.runs for r in Audit(run).rows()}
    cases = {}
    for run in args.runs:
        audit = Audit(run)
        for r in audit.rows():
            start = next(e for e in audit.events(r.case_id) if e.event == "case_start")
            cases[r.case_id] = start.case
    lines = [f"# Witnesses and a fitted ruling: {runs.model}", "",
             f"`{command}`", "",
             f"{len(examples)} labelled cases of {', '.join(sorted({dataset(e.source) for e in examples}))} (dev files), "
             f"court `{runs.court.spec.name}`, witnesses {', '.join(fit.ruling.witnesses)}; ruling families "
             f"{', '.join(fit.ruling.families)}. Every number is out of fold (5 folds over groups of identical answers). "
             "Cells: balanced accuracy [95% bootstrap] / AUROC.", ""]
    loso = leave_one_source_out(examples, key=lambda e: group(e.source))
    loso_rows = rows_of(examples, loso, np.full(len(examples), 0.5))
    for name in sorted({dataset(e.source) for e in examples}):
        mine = [i for i, e in enumerate(examples) if dataset(e.source) == name]
        r = [ruled[i] for i in mine]
        t = [today[examples[i].case_id] for i in mine if examples[i].case_id in today]
        o = overlap_only_rows([cases[examples[i].case_id] for i in mine])
        o = [x.model_copy(update={"source": group(x.source)}) for x in o]
        lo = [loso_rows[i] for i in mine]
        lines += [f"## {name}", "", "| cases | n | today's default court | word overlap | ruling (5-fold) | ruling, "
                  "leave one source out |", "|---|---|---|---|---|---|"]
        for src in ["all", *sorted({x.source for x in r})]:
            def pick(rows: list[ResultRow], s: str = src) -> list[ResultRow]:
                return [x for x in rows if s == "all" or x.source == s]
            lines.append(f"| {src} | {len(pick(r))} | {metric_cell(pick(t))} | {metric_cell(pick(o))} | "
                         f"{metric_cell(pick(r))} | {metric_cell(pick(lo))} |")
        lines += ["", f"Paired (ruling - other, balanced accuracy [95%], McNemar): against today's court "
                      f"{paired_cell(r, t)}; against word overlap {paired_cell(r, o)}.", ""]
    if not args.no_ablation:
        lines += ["## Ablation: the ruling refitted without one witness", "",
                  "| without | " + " | ".join(sorted({dataset(e.source) for e in examples})) + " |",
                  "|---" * (1 + len({dataset(e.source) for e in examples})) + "|"]
        for witness in ["(none)", *fit.ruling.witnesses]:
            chosen = [replace(e, values={k: v for k, v in e.values.items() if not k.startswith(witness + ".")},
                              vectors={k: v for k, v in e.vectors.items() if k != witness}, spans=None) for e in examples]
            refit = fit_ruling(chosen, model=runs.model, court=runs.court.spec.name, witnesses=fit.ruling.witnesses)
            rr = rows_of(chosen, refit.out_of_fold, np.full(len(chosen), 0.5))
            cells = [metric_cell([x for x, e in zip(rr, chosen) if dataset(e.source) == d])
                     for d in sorted({dataset(e.source) for e in examples})]
            lines.append(f"| {witness} | " + " | ".join(cells) + " |")
        lines.append("")
    if fit.span_cases:
        lines += ["## Pointing at the lie (cases with gold spans, token level)", "",
                  "| spans from | answers | P | R | F1 [95%] on hallucinated answers | char F1 | hit@1 [95%] |",
                  "|---|---|---|---|---|---|---|"]
        ways = dict(fit.span_cases)
        word_lines: list[str] = []
        if any(e.spans is not None and e.spans.word_hidden is not None for e in examples):
            # the same fit with the words' hidden states taken away: what the word probe adds
            bare = [replace(e, spans=replace(e.spans, word_hidden=None) if e.spans is not None else None,
                            word_hidden=None) for e in examples]
            without = fit_ruling(bare, model=runs.model, court=runs.court.spec.name, witnesses=fit.ruling.witnesses)
            ways["words, without the word probe"] = without.span_cases["words"]
            plain = rows_of(bare, without.out_of_fold,
                            np.array([without.ruling.family_for(e.family)[1].threshold for e in bare]))
            word_lines = ["The ruling without the words' states (no word probe, no `hidden.words_*` values), against "
                          "the ruling with them (balanced accuracy [95%] / AUROC; paired difference, McNemar):", "",
                          "| cases | without | with | with - without |", "|---|---|---|---|"]
            names = ["all", *sorted({dataset(e.source) for e in examples})]
            for name in names:
                mine = [i for i, e in enumerate(examples) if name == "all" or dataset(e.source) == name]
                a, b = [ruled[i] for i in mine], [plain[i] for i in mine]
                word_lines.append(f"| {name} | {metric_cell(b)} | {metric_cell(a)} | {paired_cell(a, b)} |")
            word_lines.append("")
        if word_lines:
            lines[lines.index("## Pointing at the lie (cases with gold spans, token level)"):0] = word_lines
        for name, found in ways.items():
            s = span_scores(found)
            lines.append(f"| {name} | {s['answers']} | {span_cells(s)} |")
        lines.append("")
        for name, against in [("words", "sentences"), ("words", "words, without the word probe")]:
            if name in ways and against in ways:
                d = paired_f1_difference(ways[name], ways[against])
                lines.append(f"Token F1, {name} - {against}: {d[0]:+.3f} [{d[1]:+.3f}, {d[2]:+.3f}] (paired bootstrap).")
        by_type = span_scores(ways["words"])["token recall by type"]
        lines += ["", "Token recall of the witnesses' words by annotation type: "
                  + ", ".join(f"{k} {v:.3f}" for k, v in by_type.items()), ""]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    if args.ruling:
        _, evaluation = ruling_table(fit)
        write_ruling(fit, args.ruling, evaluation)
        print(f"wrote {args.ruling}")


if __name__ == "__main__":
    main()
