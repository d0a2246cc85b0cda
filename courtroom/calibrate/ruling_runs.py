"""Fitting a court's ruling on labelled runs (`courtroom calibrate RUN... --ruling FILE`): each labelled case
becomes an `Example` for `fit_ruling`, and the ruling file is written with its out-of-fold numbers."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import yaml

from courtroom.calibrate.fit_ruling import Example, RulingFit, fit_ruling
from courtroom.calibrate.fit_spans import SpanExample
from courtroom.case import Case, CaseVerdict
from courtroom.clerk import CourtroomJudge
from courtroom.clerk.rulings import check_ruling
from courtroom.courts import load_court
from courtroom.courts.write import draft_court
from courtroom.digest import content_hash
from courtroom.door.models import model_key
from courtroom.door.spec import BackendSpec
from courtroom.engine.events import CaseStartEvent, ModelCallEvent, VerdictEvent
from courtroom.errors import ConfigError, CourtError
from courtroom.evaluate.paired import named
from courtroom.log.audit import Audit
from courtroom.log.files import atomic_write
from courtroom.text.sentences import SPLITTER, SentenceSplitter, sentence_spans
from courtroom.witness.family import task_family
from courtroom.witness.reading import Reading
from courtroom.witness.registry import WITNESSES
from courtroom.witness.ruling import FittedRuling, testimony_values
from courtroom.witness.spans import word_values


@dataclass(frozen=True)
class LabelledRuns:
    """The examples of labelled runs of one court and model, and that court."""

    examples: list[Example]
    court: CourtroomJudge
    model: str
    runs: list[str]
    projected_words: int = 0
    """Cases whose words' states were recorded projected onto a word probe: no new word probe is fitted on
    them."""


def witness_court(audit: Audit) -> CourtroomJudge:
    """The court of a run whose testimony a ruling weighs (a courtroom run hearing witnesses), else a
    `ConfigError`."""
    manifest = audit.manifest
    if manifest.spec.judge.name != "courtroom":
        raise ConfigError(f"{audit.root} is a run of the {manifest.spec.judge.name} judge: a ruling weighs a "
                          "court's witnesses")
    court = audit.judge  # rebuilt once for the run
    if not isinstance(court, CourtroomJudge):  # (the registry's `courtroom` judge always is)
        raise ConfigError(f"{audit.root}: its judge is not a court")
    if court.spec.witnesses is None:
        raise ConfigError(f"{audit.root}: its court ({court.spec.name}) hears no witnesses; run a court that "
                          "does (the default court hears them)")
    return court


def check_for_run(ruling: FittedRuling, court: CourtroomJudge, model: str, where: str) -> None:
    """Refuse (`ConfigError`) a ruling the run's court would not take: of another model or court, or other
    witnesses."""
    if model_key(ruling.model) != model or ruling.court != court.spec.name:
        raise ConfigError(f"{where}: the ruling was fitted for model {ruling.model!r} and court "
                          f"{ruling.court!r}; the run was judged on {model!r} by court {court.spec.name!r}, "
                          f"which refuses a ruling of another model or court: give one fitted for {model!r} "
                          f"and court {court.spec.name!r}")
    try:  # the witnesses it weighs heard by the court, else every case would weigh at the ruling's means
        check_ruling(ruling, court.spec, ruling.model, where, courts=())
    except CourtError as exc:
        raise ConfigError(str(exc)) from exc


def example_of(events: Sequence[object], splitter: SentenceSplitter = SPLITTER,
               hallucinated: bool | None = None, spans: bool = True) -> Example | None:
    """A case's example from its transcript (labelled `hallucinated`, else by its gold), or None without a
    verdict, a label or testimony; with gold spans (and `spans`), also its `SpanExample`."""
    case: Case | None = None
    verdict: CaseVerdict | None = None
    ground: list[ModelCallEvent] = []
    for event in events:
        if isinstance(event, CaseStartEvent):
            case = event.case
        elif isinstance(event, VerdictEvent):
            verdict = event.verdict
        elif isinstance(event, ModelCallEvent) and event.purpose == "ground" and event.charge is None:
            ground.append(event)
    if (case is None or verdict is None or (case.label is None and hallucinated is None)
        or not verdict.testimony):
        return None
    if hallucinated is None:
        hallucinated = case.label == "FAIL"
    observed = next((e for e in ground if e.observe is not None), None)
    values = testimony_values(verdict.testimony)
    states = _word_states(observed)
    return Example(case_id=case.id, source=case.source, family=task_family(case), hallucinated=hallucinated,
                   values=values, vectors=pass_vectors(observed, -1), group=content_hash(case.answer.strip()),
                   item=content_hash(case.question + "\x00" + "\x00".join(case.context)),
                   spans=_span_example(case, verdict, ground, splitter, states)
                   if spans and (case.spans or case.label == "PASS") else None,
                   word_hidden=np.array(states, dtype=np.float32) if states is not None else None)


def _word_states(observed: ModelCallEvent | None) -> list[list[float]] | None:
    """The answer's words' hidden states a scoring pass recorded (`witnesses.word_states`), else None."""
    asked = observed.observe.hidden_only if observed is not None and observed.observe is not None else ()
    if not asked or observed is None or observed.projected_words is not None or not observed.hidden:
        return None
    states = observed.hidden[len(observed.hidden) - len(asked):]
    return [list(s[0]) for s in states] if len(states) == len(asked) and all(states) else None


def pass_vectors(observed: ModelCallEvent | None, at: int) -> dict[str, list[float]]:
    """The vectors a pass observed over one span (the last: the whole answer)."""
    vectors: dict[str, list[float]] = {}
    if observed is not None and observed.lookback:
        vectors["lookback"] = [v for layer in observed.lookback[at] for v in layer]
    if observed is not None and observed.hidden:
        spans = len(observed.observe.spans) if observed.observe is not None else len(observed.hidden)
        state = observed.hidden[:spans][at]  # the words' states (`hidden_only`) follow the spans'
        if state:
            vectors["hidden"] = list(state[0])
    return vectors


def _span_example(case: Case, verdict: CaseVerdict, ground: list[ModelCallEvent], splitter: SentenceSplitter,
                  states: list[list[float]] | None = None) -> SpanExample | None:
    """The words of the answer with their values, for a span model (None without both scoring passes)."""
    if len(ground) < 2 or ground[0].token_logprobs is None or ground[1].token_logprobs is None:
        return None
    full, bare = ground[0], ground[1]
    answer = case.answer.strip()
    reading = Reading.of(case, sentence_spans(answer, splitter) or ((0, len(answer)),), ())
    spans = [tuple(s) for s in full.token_spans or ()]
    found, rows, _ = word_values(answer, reading.sentences, [0.0] * len(reading.sentences), spans,  # type: ignore[arg-type]
                                 full.token_logprobs, bare.token_logprobs, full.token_lookback,
                                 verdict.testimony, reading.offset)
    word_hidden = (states if full.observe is not None and states is not None
                   and len(states) == len(found) else None)
    return SpanExample(answer=answer, offset=reading.offset, words=found, rows=rows, word_hidden=word_hidden,
                       sentence_values=[testimony_values(verdict.testimony, i)
                                        for i in range(len(reading.sentences))],
                       sentence_vectors=[pass_vectors(full if full.observe is not None else None, i)
                                         for i in range(len(reading.sentences))],
                       gold=list(case.spans))


def labelled_runs(run_dirs: Sequence[str | Path | Audit]) -> LabelledRuns:
    """Every labelled, judged case of the runs, which must share their court and model."""
    examples: list[Example] = []
    court: CourtroomJudge | None = None
    model = ""
    projected = 0
    seen: dict[str, tuple[str, Path]] = {}  # a case id -> its case's digest and the run it was first found in
    for run_dir in run_dirs:
        audit = Audit.of(run_dir)
        this = witness_court(audit)
        this_model = model_key(audit.manifest.model)
        human = audit.human_labels()  # a person's label (or correction) of a case stands for its gold
        if court is None:
            court, model = this, this_model
        elif (this.spec.name, this_model) != (court.spec.name, model):
            raise ConfigError(f"{run_dir}: a run of court {this.spec.name!r} on {this_model!r}, the first "
                              f"run is of court {court.spec.name!r} on {model!r}: a ruling is fitted for one "
                              "court and one model")
        found, clashes = [], []
        for row in audit.rows():
            if row.label is None or (row.gold is None and row.case_id not in human):
                continue
            digest = row.case_digest or audit.store.case(row.case_id).digest()
            # the same case in two runs counts once; another case under its id is refused
            if row.case_id in seen:
                if seen[row.case_id][0] != digest:
                    clashes.append(row.case_id)
                continue
            seen[row.case_id] = (digest, audit.root)
            events = list(audit.events(row.case_id))
            example = example_of(events, this.spec.sentences,
                                 human[row.case_id] == "FAIL" if row.case_id in human else None)
            if example is not None:
                found.append(example)
                projected += any(isinstance(e, ModelCallEvent) and e.projected_words for e in events)
        if clashes:
            raise ConfigError(f"{run_dir}: {len(clashes)} case ids name other cases in {seen[clashes[0]][1]} "
                              f"({named(clashes)}): cases are matched across runs by id, and these would be "
                              "silently dropped; give each dataset's cases ids of their own (an `id` column, "
                              "or --field id=COLUMN) and judge them again")
        if not any(e.spans is not None and e.spans.gold for e in found):  # a run whose data has no gold spans
            found = [replace(e, spans=None) for e in found]
        examples += found
    if court is None:
        raise ConfigError("no run given")
    return LabelledRuns(examples, court, model, [str(r) for r in run_dirs], projected)


def calibrate_ruling(run_dirs: Sequence[str | Path], folds: int = 5, seed: int = 0,
                     command: str = "") -> tuple[RulingFit, LabelledRuns]:
    """The ruling fitted on the runs' labelled cases, with its out-of-fold estimate."""
    runs = labelled_runs(run_dirs)
    witnesses = runs.court.spec.witnesses
    assert witnesses is not None
    heard = {t for e in runs.examples for t in {k.split(".")[0] for k in e.values}}
    versions = {name: WITNESSES[name].version for name in witnesses.heard if name in heard or name in
                {"lookback", "hidden"} & {k for e in runs.examples for k in e.vectors}}
    fit = fit_ruling(runs.examples, model=runs.model, court=runs.court.spec.name, witnesses=versions,
                     hidden_depth=witnesses.hidden_depth
                     if any("hidden" in e.vectors for e in runs.examples) else None,
                     folds=folds, seed=seed, command=command)
    if runs.projected_words:
        fit.notes.append(f"{runs.projected_words} cases recorded their words projected onto the ruling's "
                         "word probe (one number a word), not their states: no word probe is fitted on them; "
                         "run the court with --set witnesses.word_states=true to refit one")
    return fit, runs


def write_ruling(fit: RulingFit | FittedRuling, path: str | Path, evaluation: dict[str, object]) -> Path:
    """The ruling file (of a fit, or a ruling), with its out-of-fold numbers."""
    ruling = (fit.ruling if isinstance(fit, RulingFit) else fit).model_copy(update={"evaluation": evaluation})
    path = Path(path)
    atomic_write(path, yaml.safe_dump(ruling.model_dump(mode="json"), sort_keys=False, width=120,
                                          default_flow_style=None))
    return path


def court_with_ruling(run_dir: str | Path | Audit, ruling: str | Path, output: str | Path) -> Path:
    """Write the run's court with `ruling` filed under the run's model, and check that it loads with it."""
    audit = Audit.of(run_dir)
    court = witness_court(audit)
    config = audit.manifest.judge_config
    model = model_key(audit.manifest.model)
    output = Path(output)
    draft = draft_court(config, output)
    data = draft.data
    relative = os.path.relpath(Path(ruling).resolve(), output.resolve().parent)
    data["witnesses"]["rulings"] = {**{m: r for m, r in (court.spec.witnesses.rulings or {}).items()  # type: ignore[union-attr]
                                       if model_key(m) != model and isinstance(r, str)}, model: relative}
    header = (f"# {data['name']}, with the ruling fitted by `courtroom calibrate --ruling` for {model}: "
              f"{relative}\n")
    for path, text in draft.files(header).items():
        atomic_write(path, text)
    loaded = load_court(output, BackendSpec(model=model))
    if loaded.ruling is None:
        raise ConfigError(f"{output}: the court loads, but finds no ruling for {model}")
    return output
