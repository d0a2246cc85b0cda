"""Tables and plots of every run under experiments/results, from the committed per-case results.

    python experiments/report.py            # writes experiments/RESULTS.md and experiments/plots/*.png

Each number is recomputed from results.jsonl, so anyone can check it. Paired tests compare the
courtroom with every other judge on the cases both judged (McNemar's exact test, and a paired
bootstrap interval of the balanced-accuracy difference). The length-only baseline (predict FAIL for
answers longer than the median) is computed straight from the data files.
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from courtroom.evaluate.comparison import Contender, Pairing, compare, debate_gain  # noqa: E402
from courtroom.evaluate.confounds import LENGTH_ONLY, NO_MODEL_ROWS, OVERLAP_ONLY, answer_words  # noqa: E402
from courtroom.evaluate.datasets import load_file  # noqa: E402
from courtroom.evaluate.metrics import auroc, compute_metrics, metrics_by_source  # noqa: E402
from courtroom.evaluate.results import (
    ResultRow,  # noqa: E402
    escalation,  # noqa: E402
)
from courtroom.evaluate.selection import select  # noqa: E402
from courtroom.evaluate.thresholds import calibrated_rows  # noqa: E402
from courtroom.log.store import RunStore  # noqa: E402

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
PLOTS = HERE / "plots"
DATA = HERE.parents[1] / "shared" / "data"
NO_MODEL_RULES = tuple(NO_MODEL_ROWS)
JUDGE_ORDER = ["courtroom", "single", "two-step", "rails", "per-context", "vote", "unstructured", *NO_MODEL_RULES]


WITNESS_RUNS = {"witnesses", "witnesses-final", "pointing", "word-states"}
"""The witness runs of #31 and #32 (every row of a dev file in process, samples of 200 served, the span trial on the
hallucinated rows, the words' states recorded for the word probe), reported from their own `witnesses*.md` (below), not
in the tables of the 200-case samples."""


def witness_sections() -> list[str]:
    """Each model's `witnesses.md` and `witnesses-*.md` (written by `experiments/witnesses.py`), headings one level
    down."""
    lines = ["## Witnesses, a fitted ruling, spans (#31, #32)", "",
             "Every row of `halubench-dev.jsonl` and `ragtruth-spans-dev.jsonl`, the default court (every witness "
             "heard), the ruling out of fold; the command that writes each part is at its top.", ""]
    for path in sorted(RESULTS.glob("*/witnesses*.md")):
        text = path.read_text().splitlines()
        lines += [("#" + line if line.startswith("#") else line) for line in text] + [""]
    return lines


def debate_section() -> list[str]:
    """The trials measured (#44): `experiments/debate.py report`'s page, headings one level down."""
    path = RESULTS / "debate" / "README.md"
    if not path.is_file():
        return []
    return [("#" + line if line.startswith("#") else line) for line in path.read_text().splitlines()] + [""]


def trial_sections() -> list[str]:
    """What the trial is worth (#51) and a trial a person can check (#59): `experiments/trial_testimony.py`'s and
    `experiments/trial_texts.py`'s pages, headings one level down."""
    lines = []
    for path in [*sorted(RESULTS.glob("*/trial-testimony*.md")), *sorted(RESULTS.glob("trial-texts*.md"))]:
        lines += [("#" + line if line.startswith("#") else line) for line in path.read_text().splitlines()] + [""]
    return lines


def runs_index() -> list[str]:
    """Every committed run: the numbers it backs (the section of this page, or the page of its own) and whether this
    version rebuilds its judge (so `audit verify` and `rejudge` work where its transcripts are kept), or the retired
    setting that stops it with the last version that replays it."""
    from courtroom.courts.migrations import RETIRED_SETTINGS
    from courtroom.engine.migrations import retired
    from courtroom.errors import CourtroomError

    lines = ["## The committed runs, and which version replays them", "",
             "Every run directory under `experiments/results/` (rows and manifest committed; transcripts, which hold "
             "the data's text, are not). *Numbers*: where they are published. *Replays*: whether this version of "
             "courtroom rebuilds the run's judge from its manifest (then `audit verify` and `rejudge` work wherever "
             "its transcripts are kept), or why not and the last version that does. Made by `experiments/report.py`.",
             "", "| run | judge | cases | numbers | replays |", "|---|---|---|---|---|"]
    for manifest in sorted(RESULTS.glob("**/manifest.json")):
        store, name = RunStore(manifest.parent), manifest.parent.relative_to(RESULTS).as_posix()
        recorded = store.manifest()
        court = recorded.judge.get("court", {}) if recorded.judge.get("judge") == "courtroom" else {}
        judge = recorded.spec.judge.name + (f" ({court.get('name')})" if isinstance(court, dict) and court else "")
        where = ("docs/experiments.md, The trials measured" if name.startswith("debate/") else
                 "What the trial is worth (#51)" if "trial-testimony" in name else
                 "A trial a person can check (#59)" if name.endswith(("-composed", "-795874c")) else
                 "Tuning runs" if "tune" in name else
                 "Witnesses, a fitted ruling, spans" if any(k in name for k in ("witnesses", "word-states", "span")) else
                 f"{name.split('/')[-1].split('-')[0]}, model {name.split('/')[0]}")
        settings = recorded.judge_config.get("retired") or []
        if gone := retired(recorded.config_hash):
            replays = f"no: its judge is retired ({gone})"
        elif settings:
            setting = next(s for s in RETIRED_SETTINGS if s.name == settings[0])
            replays = f"no: {setting.name} is retired; {setting.last} replays it"
        else:
            try:
                recorded.rebuild_judge()
                replays = "yes"
            except CourtroomError as exc:
                replays = f"no: {exc}"
        lines.append(f"| {name} | {judge} | {len(store.rows())} | {where} | {replays} |")
    return lines + [""]


def runs() -> dict[tuple[str, str], dict[str, RunStore]]:
    """(model, dataset) -> judge name (with tag) -> store."""
    found: dict[tuple[str, str], dict[str, RunStore]] = {}
    for manifest in sorted(RESULTS.glob("*/*/manifest.json")):
        store = RunStore(manifest.parent)
        model = manifest.parent.parent.name
        if model == "debate":  # the trials of #44, one page of their own (`debate_section`)
            continue
        dataset, _, judge = manifest.parent.name.partition("-")
        found.setdefault((model, dataset), {})[judge] = store
    return found


def _order(name: str) -> tuple[int, str]:
    base = name.split("-")[0] if name.split("-")[0] in JUDGE_ORDER else name
    return (JUDGE_ORDER.index(base) if base in JUDGE_ORDER else len(JUDGE_ORDER), name)


def roc_points(rows: list) -> tuple[np.ndarray, np.ndarray]:
    judged = [r for r in rows if r.score is not None and r.gold is not None]
    scores = np.array([r.score for r in judged])
    gold = np.array([r.gold == "FAIL" for r in judged])
    thresholds = np.unique(np.concatenate([[np.inf], scores, [-np.inf]]))[::-1]
    tpr = [(scores[gold] >= t).mean() for t in thresholds]
    fpr = [(scores[~gold] >= t).mean() for t in thresholds]
    return np.array(fpr), np.array(tpr)


def plot(model: str, dataset: str, judges: dict[str, list]) -> str:
    PLOTS.mkdir(exist_ok=True)
    fig, (roc, rel) = plt.subplots(1, 2, figsize=(10, 4.5))
    for name, rows in sorted(judges.items(), key=lambda kv: _order(kv[0])):
        if not rows:
            continue
        fpr, tpr = roc_points(rows)
        m = compute_metrics(rows, resamples=0)
        roc.plot(fpr, tpr, label=f"{name} (AUROC {m.auroc.value:.2f})" if m.auroc.value is not None else name)
        judged = [r for r in rows if r.score is not None and r.gold is not None]
        bins = np.linspace(0, 1, 6)
        xs, ys = [], []
        for lo, hi in zip(bins[:-1], bins[1:]):
            members = [r for r in judged if lo <= r.score < hi or (hi == 1 and r.score == 1)]
            if members:
                xs.append(np.mean([r.score for r in members]))
                ys.append(np.mean([r.gold == "FAIL" for r in members]))
        if name not in NO_MODEL_RULES:  # their scores are ranks, not probabilities
            rel.plot(xs, ys, marker="o", label=name)
    for ax in (roc, rel):
        ax.plot([0, 1], [0, 1], ls="--", color="grey", lw=1)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
    roc.set(title=f"ROC: {dataset}, {model}", xlabel="false positive rate", ylabel="true positive rate")
    rel.set(title="reliability", xlabel="mean score in bin", ylabel="share hallucinated (FAIL)")
    roc.legend(fontsize=7, loc="lower right")
    rel.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    path = PLOTS / f"{model}-{dataset}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path.name


def paired_cells(pairing: Pairing) -> list[str]:
    """The table cells "Δ balanced accuracy (court − judge) [95% CI]" and "McNemar p" of a pairing."""
    d = "-" if pairing.difference is None else f"{pairing.difference:+.3f}"
    ci = "" if pairing.low is None else f" [{pairing.low:+.3f}, {pairing.high:+.3f}]"
    return [f"{d}{ci}", f"{pairing.p_value:.3g}"]


def against_court(court: str, judges: dict[str, list[ResultRow]], calibrated: bool = False) -> dict[str, Pairing]:
    """Every judge paired with the court on shared cases (`courtroom compare`'s flow), by name."""
    others = [Contender.of(name, rows) for name, rows in sorted(judges.items(), key=lambda kv: _order(kv[0]))
              if name != court]
    return {p.name: p for p in compare([Contender.of(court, judges[court]), *others], calibrated=calibrated).pairings}


def diagnostics(rows: list) -> list[str]:
    """Where the court's verdicts come from: charges brought and scores, by gold label and by source."""
    lines = ["", "Where the court's verdicts come from:", "",
             "| gold | cases | charged | charges/case | rounds/charge | mean score | called FAIL |", "|---|---|---|---|---|---|---|"]
    for gold in ("FAIL", "PASS"):
        group = [r for r in rows if r.gold == gold and r.score is not None]
        if not group:
            continue
        charged = [r for r in group if r.charges]
        lines.append(f"| {gold} | {len(group)} | {len(charged) / len(group):.0%} | "
                     f"{np.mean([r.charges for r in group]):.2f} | "
                     f"{np.mean([r.rounds for r in charged]) if charged else 0:.2f} | "
                     f"{np.mean([r.score for r in group]):.3f} | {np.mean([r.label == 'FAIL' for r in group]):.0%} |")
    lines += ["", "| source | cases | balanced accuracy | AUROC |", "|---|---|---|---|"]
    for source, m in metrics_by_source(rows, depth=2).items():
        lines.append(f"| {source} | {m.cases} | {m.balanced_accuracy} | {m.auroc} |")
    return lines


def median_threshold_balanced_accuracy(rows: list) -> float:
    """Balanced accuracy when every case scored above the run's median score is called FAIL: a
    label-free operating point (on a balanced sample it convicts half the cases), which compares how
    well judges rank cases apart from where their own thresholds sit."""
    judged = [r for r in rows if r.score is not None and r.gold is not None]
    if not judged:
        return float("nan")
    scores = np.array([r.score for r in judged])
    gold = np.array([r.gold == "FAIL" for r in judged])
    pred = scores > np.median(scores)
    if gold.all() or not gold.any():
        return float("nan")
    return float(((pred & gold).sum() / gold.sum() + (~pred & ~gold).sum() / (~gold).sum()) / 2)


def no_model_judges(dataset: str, case_ids: set[str]) -> dict[str, list[ResultRow]]:
    """The no-model rules (length-only, overlap-only) judging the cases of a table (every case any of its
    runs judged)."""
    path = DATA / f"{dataset}-dev.jsonl"
    if not path.is_file():
        return {}
    cases = [c for c in load_file(path) if c.id in case_ids]
    return {rule: rows(cases) for rule, rows in NO_MODEL_ROWS.items()}


def beyond_rule(rows: list[ResultRow], lengths: list[ResultRow]) -> tuple[int, float, float]:
    """Cases, then the cross-validated AUROC of a logistic model on a no-model rule's rank alone and on it
    plus the judge's score (stratified 5-fold, same folds): how much the judge knows that the rule does not."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    rank = {r.case_id: r.score for r in lengths}
    judged = [r for r in rows if r.score is not None and r.gold is not None and r.case_id in rank]
    gold = np.array([r.gold == "FAIL" for r in judged])
    if min(gold.sum(), (~gold).sum()) < 10:  # every training fold needs both labels
        return len(judged), float("nan"), float("nan")
    folds = StratifiedKFold(n_splits=5, shuffle=True, random_state=0)
    x_length = np.array([[rank[r.case_id]] for r in judged])
    x_both = np.column_stack([x_length, [r.score for r in judged]])
    return len(judged), *(
        auroc(gold, cross_val_predict(LogisticRegression(), x, gold, cv=folds, method="predict_proba")[:, 1])
        for x in (x_length, x_both))


def no_model_rules(dataset: str, limit: int = 200, seed: int = 0) -> list[str]:
    """The no-model rules on the dataset's balanced sample (the one every run of it judges)."""
    path = DATA / f"{dataset}-dev.jsonl"
    if not path.is_file():
        return []
    cases = select(load_file(path), limit=limit, balanced=True, seed=seed)
    rules = {LENGTH_ONLY: f"longer than the median ({np.median([answer_words(c) for c in cases]):g} words) → FAIL",
             OVERLAP_ONLY: "more of its words unused by the context and question than the median → FAIL"}
    lines = []
    for rule, describe in rules.items():
        m = compute_metrics(NO_MODEL_ROWS[rule](cases), resamples=0)
        lines.append(f"| {dataset} | {rule} | {m.cases} | {m.balanced_accuracy.value:.3f} | {m.auroc.value:.3f} | "
                     f"{describe} |")
    return lines


def pooled_section(model: str, by_dataset: dict[str, dict[str, list[ResultRow]]]) -> list[str]:
    """Every judge run on all of a model's datasets, pooled over them, paired against the court (thresholds
    calibrated on each dataset alone, as `courtroom compare A+B --calibrated` does)."""
    datasets = sorted(by_dataset)
    names = set.intersection(*(set(judges) for judges in by_dataset.values()))
    pooled = {name: Contender(name=name, judge=name, model=model, members=tuple(tuple(by_dataset[d][name]) for d in datasets))
              for name in names}
    court = "courtroom"
    if len(datasets) < 2 or court not in pooled:
        return []
    lines = [f"## {' + '.join(datasets)} pooled, model {model}", "",
             f"Each judge's runs on {' and '.join(datasets)} as one sample (`courtroom compare A+B C+D`): one paired "
             "test on every case both judges finished. Calibrated thresholds are fitted on each dataset alone, then "
             "pooled. This view was added after the per-dataset tables above were known: read it as a secondary "
             "analysis beside them. A pooled lead does not test either dataset on its own.", "",
             "| judge | cases | balanced accuracy | AUROC | shared | Δ balanced accuracy (court − judge) [95% CI] "
             "| McNemar p | Δ, calibrated [95% CI] | McNemar p, calibrated |", "|---|---|---|---|---|---|---|---|---|"]
    order = [pooled[court], *(pooled[n] for n in sorted(pooled, key=_order) if n != court)]
    own = {p.name: p for p in compare(order).pairings}
    calibrated = {p.name: p for p in compare(order, calibrated=True).pairings}
    for name in sorted(pooled, key=_order):
        m = compute_metrics(pooled[name].rows())
        cells = ["-"] * 5
        if name != court:
            cells = [str(own[name].shared), *paired_cells(own[name]), *paired_cells(calibrated[name])]
        lines.append(f"| {name} | {m.cases} | {m.balanced_accuracy} | {m.auroc} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def main() -> None:
    lines = ["# Experiment results", "",
             "Generated by `python experiments/report.py` from the per-case results committed under "
             "`experiments/results/` (numbers recompute from `results.jsonl`). Balanced samples (seed 0) of the dev "
             "files in `../shared/data`; 95% bootstrap intervals in brackets. Positive class: FAIL (hallucinated).",
             "",
             "*Balanced accuracy* is at each judge's own threshold (0.5 on its score). *At the median score* calls FAIL "
             "every case scored above the run's median, a label-free operating point that compares ranking apart "
             "from calibration. *Calibrated threshold*: each case is labelled with the threshold that maximises "
             "balanced accuracy on the other four fifths of the run (stratified 5-fold cross-validation, "
             "`courtroom compare --calibrated`), an out-of-sample estimate of a judge calibrated on labelled data "
             "of the same kind. *Tokens/case* counts every prompt and generated token; in brackets the tokens the "
             "model actually computed (prompt prefixes are reused within a case). *Model s/case* is the time of the "
             "model calls a case took part in (a lockstep batch's time counts for each of its cases) on a 2-core "
             "CPU shared with other runs: compare within a table, not across runs of different days.", "",
             "`courtroom` is the shipped default court: grounding measured on the whole answer with each token's "
             "gain capped, the verdict by the share of the answer's text found hallucinated. Its measure, judge "
             "weight and verdict threshold were chosen on tuning runs and token probes of HaluBench and RAGTruth dev "
             "cases disjoint from these evaluation samples (see *Tuning runs* below and `experiments/probes/`). "
             "`courtroom-v2` is the previous default court "
             "(each sentence measured alone, convicted when any charge's ruling reaches 0.34), `courtroom-v1` the "
             "first (threshold 0.5); the v2 rows were re-decided from the v1 runs' transcripts with `courtroom "
             "rejudge` (the two courts ask the model the same things, so this is exactly what a live run gives).", "",
             "`two-step` follows the founding article: its first step always names 1-3 candidate statements and "
             "the second scores them; `two-step-v1`, the former version, let the first step return no candidate, "
             "which Qwen did for every case.", "",
             "`unstructured` is the single judge without constraints, its reply read as the founding article does "
             "(`json.loads` of the whole text, the constrained judge's schema); `unstructured-lenient` reads the same "
             "replies again from the transcripts (`courtroom rejudge --reading lenient`) as peer tools' parsers do: "
             "the first JSON object with a score in [0, 1], inside a code fence or after prose, reasons of any "
             "length. Cases whose transcripts were lost in a machine reset are missing from it.", "",
             "`length-only` is no model: it calls FAIL every answer longer (in words) than the median of the cases "
             "in the table, and scores by length rank. Where it comes close, a judge's accuracy may be answer length "
             "in disguise. `overlap-only` is no model either: it calls FAIL every answer with a larger share of content "
             "words that neither the context nor the question uses than the table's median (`courtroom.text.words`).", ""]
    summary: dict = {}
    tuning: list[str] = []
    witness_runs: list[str] = []
    evaluated: dict[str, dict[str, dict[str, list[ResultRow]]]] = {}
    for (model, dataset), stores in sorted(runs().items()):
        judges = {name: rows for name, store in stores.items() if (rows := store.rows()) and "-tune" not in name
                  and name not in WITNESS_RUNS}
        if judges:
            judges |= no_model_judges(dataset, {r.case_id for rows in judges.values() for r in rows})
            evaluated.setdefault(model, {})[dataset] = judges
        for name in sorted(set(stores) - set(judges)):
            if rows := stores[name].rows():
                m = compute_metrics(rows)
                row = f"| {model} | {dataset} | {name} | {m.cases} | {m.balanced_accuracy} | {m.auroc} |"
                (witness_runs if name in WITNESS_RUNS else tuning).append(row)
        lines += [f"## {dataset}, model {model}", "",
                  "| judge | cases | errors | balanced accuracy | F1 (FAIL) | AUROC | bal. acc., calibrated threshold "
                  "| bal. acc. at the median score | parse failures | tokens/case (computed) | model s/case |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for name, rows in sorted(judges.items(), key=lambda kv: _order(kv[0])):
            m = compute_metrics(rows)
            summary[f"{model}/{dataset}/{name}"] = json.loads(m.model_dump_json())
            f1 = "-" if m.f1.value is None else f"{m.f1.value:.3f}"
            calibrated = compute_metrics(calibrated_rows(rows)).balanced_accuracy
            lines.append(f"| {name} | {m.cases} | {m.errors} | {m.balanced_accuracy} | {f1} | {m.auroc} | "
                         f"{calibrated} | {median_threshold_balanced_accuracy(rows):.3f} | {m.parse_failures} | "
                         f"{m.tokens_per_case:.0f} ({m.computed_prompt_tokens_per_case + m.completion_tokens_per_case:.0f}) "
                         f"| {m.seconds_per_case:.1f} |")
        court = next((n for n in sorted(judges, key=_order) if n.startswith("courtroom")), None)
        if court:
            lines += ["", f"Paired against `{court}` on shared cases (own thresholds; calibrated thresholds):", "",
                      "| judge | shared | Δ balanced accuracy (court − judge) [95% CI] | McNemar p "
                      "| Δ, calibrated [95% CI] | McNemar p, calibrated |", "|---|---|---|---|---|---|"]
            own, calibrated = against_court(court, judges), against_court(court, judges, calibrated=True)
            for name in own:
                cells = paired_cells(own[name]) + paired_cells(calibrated[name])
                lines.append(f"| {name} | {own[name].shared} | " + " | ".join(cells) + " |")
        if court and len(judges) > 1 and any("halueval" in r.source for r in judges[court]):
            lines += ["", "The same, own thresholds, without the HaluEval-sourced cases (where answer length alone "
                      "separates the labels, see the length-only baseline):", "",
                      "| judge | shared | Δ balanced accuracy [95% CI] | McNemar p |", "|---|---|---|---|"]
            plain = {n: [r for r in rows if "halueval" not in r.source] for n, rows in judges.items()}
            for name, pairing in against_court(court, plain).items():
                if pairing.shared:
                    lines.append(f"| {name} | {pairing.shared} | " + " | ".join(paired_cells(pairing)) + " |")
        for rule, signal in ((LENGTH_ONLY, "answer length"), (OVERLAP_ONLY, "word overlap")):
            if rule not in judges or len(judges) <= len(NO_MODEL_RULES):
                continue
            lines += ["", f"Does the judge know more than {signal}? Cross-validated AUROC (5 folds) of a logistic "
                      f"model on the {rule} rule's rank alone and on it plus the judge's score, on the cases the judge "
                      "finished:", "",
                      f"| judge | cases | AUROC, {signal} alone | AUROC, {signal} + judge | gain |", "|---|---|---|---|---|"]
            for name, rows in sorted(judges.items(), key=lambda kv: _order(kv[0])):
                if name not in NO_MODEL_RULES:
                    n, alone, both = beyond_rule(rows, judges[rule])
                    if not np.isnan(both):
                        lines.append(f"| {name} | {n} | {alone:.3f} | {both:.3f} | {both - alone:+.3f} |")
        for name, rows in sorted(judges.items(), key=lambda kv: _order(kv[0])):
            if name in NO_MODEL_RULES or (gain := debate_gain(Contender.of(name, rows))) is None:
                continue
            lines += ["", f"The debate's gain: `{name}` against its own measurement alone (every ruling is the charge's "
                      "measured evidence) and its agents alone (every ruling is the court's verdict, the case hallucinated "
                      "when any ruling is), decided from the same recorded calls (`courtroom audit`, `compare "
                      "--debate-gain`):", "",
                      "| decided by | cases | balanced accuracy | AUROC | Δ (court − it) [95% CI] | McNemar p |",
                      "|---|---|---|---|---|---|",
                      f"| the court | {gain.metrics[0].cases} | {gain.metrics[0].balanced_accuracy} | {gain.metrics[0].auroc} "
                      "| - | - |"]
            for contender, m, pairing in zip(gain.contenders[1:], gain.metrics[1:], gain.pairings):
                lines.append(f"| {contender.name} | {m.cases} | {m.balanced_accuracy} | {m.auroc} | "
                             + " | ".join(paired_cells(pairing)) + " |")
        for name, rows in sorted(judges.items(), key=lambda kv: _order(kv[0])):
            if name not in NO_MODEL_RULES and (held := escalation(rows)) is not None:
                lines += ["", f"`{name}`, {held.describe()}."]
        if court:
            lines += diagnostics(judges[court])
        lines += ["", f"![ROC and reliability](plots/{plot(model, dataset, judges)})", ""]
    for model, by_dataset in sorted(evaluated.items()):
        lines += pooled_section(model, by_dataset)
    if tuning:
        lines += ["## Tuning runs (not evaluations)", "",
                  "Runs on dev cases disjoint from the evaluation samples above (`--exclude`), on which the shipped "
                  "court's parameters were chosen (`experiments/dev/tune_court.py`). Their numbers are in-sample for "
                  "those choices; the evaluation tables are not.", "",
                  "| model | dataset | run | cases | balanced accuracy | AUROC |", "|---|---|---|---|---|---|", *tuning, ""]
    if witness_runs:
        lines += ["## Witness runs (their court's own verdicts)", "",
                  "The runs behind the witness sections at the end: the default court's verdicts as recorded (its "
                  "grounding measure; `-final`: decided again with the final witness code, no model call). The "
                  "rulings' out-of-fold numbers are in those sections.", "",
                  "| model | dataset | run | cases | balanced accuracy | AUROC |", "|---|---|---|---|---|---|",
                  *witness_runs, ""]
    lines += ["## Rules without a model", "",
              "The HaluEval trap: right answers are short spans, hallucinated answers are sentences. And in RAGTruth "
              "a response that uses words its sources never use is more often hallucinated.", "",
              "| dataset | rule | cases | balanced accuracy | AUROC | rule |", "|---|---|---|---|---|---|"]
    lines += [row for d in ("halueval", "halubench", "ragtruth") for row in no_model_rules(d)]
    lines += witness_sections()
    lines += debate_section()
    lines += trial_sections()
    lines += runs_index()
    (HERE / "RESULTS.md").write_text("\n".join(lines) + "\n")
    (HERE / "results" / "summary.json").write_text(json.dumps(summary, indent=2))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
