"""The court's witnesses: rulings read from files and checked against the court and model they are filed under."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from courtroom.case import Case, CaseVerdict
from courtroom.clerk.rulings import check_ruling
from courtroom.courts import courts_dir, load_court
from courtroom.door import PseudoModel, ScriptedBackend
from courtroom.door.spec import BackendSpec
from courtroom.errors import CaseFailedError, CourtError
from courtroom.witness.registry import WITNESSES
from courtroom.witness.ruling import FamilyRuling, FittedRuling, Linear, Probe, SpanModel
from courtroom.witness.spans import FEATURES, WORD_PROBE

HEARD = "heard: [grounding, lookback, hidden, figures, names, polarity, overlap, verdict]"


def a_ruling(**update: object) -> FittedRuling:
    fields = dict(model="smollm2-135m", court="default", witnesses={"figures": WITNESSES["figures"].version},
                  families={"any": FamilyRuling(linear=Linear(features=["figures.absent"], mean=[0.0], scale=[1.0],
                                                              weights=[3.0], intercept=-1.0))})
    return FittedRuling(**{**fields, **update})


def court_file(tmp_path: Path, ruling: FittedRuling | str | None, heard: str = HEARD, depth: str = "0.5",
               filed_under: str = "default") -> Path:
    """The shipped default court with a ruling file filed under a model (and the witnesses it hears changed)."""
    text = (courts_dir() / "default.yaml").read_text()
    assert HEARD in text and "hidden_depth: 0.5" in text
    text = re.sub(r"\n  rulings:\n(    .*\n)+", "\n", text)  # without the shipped rulings
    text = text.replace(HEARD, heard).replace("hidden_depth: 0.5", f"hidden_depth: {depth}")
    if ruling is not None:
        rfile = tmp_path / "rulings" / "r.yaml"
        rfile.parent.mkdir(exist_ok=True)
        rfile.write_text(ruling if isinstance(ruling, str) else yaml.safe_dump(ruling.model_dump(mode="json")))
        text = text.replace(f"  hidden_depth: {depth}\n",
                            f"  hidden_depth: {depth}\n  rulings: {{{filed_under}: rulings/r.yaml}}\n")
    path = tmp_path / "court.yaml"
    path.write_text(text)
    return path


def test_a_ruling_file_filed_under_its_model_is_read_relative_to_the_court(tmp_path: Path) -> None:
    ruling = a_ruling()
    court = load_court(court_file(tmp_path, ruling), BackendSpec(model="default"))
    assert court.ruling == ruling
    # another model's court has no ruling: the measurement decides
    assert load_court(court_file(tmp_path, ruling), BackendSpec(model="qwen2.5-coder-0.5b")).ruling is None


@pytest.mark.parametrize(("ruling", "heard", "depth", "filed_under", "both"), [
    (a_ruling(model="qwen2.5-coder-0.5b"), HEARD, "0.5", "default", ["'qwen2.5-coder-0.5b'", "'default'"]),
    (a_ruling(court="full"), HEARD, "0.5", "default", ["court 'full'", "court 'default'"]),
    (a_ruling(witnesses={"names": 1}), "heard: [grounding, figures]", "0.5", "default",
     ["witness 'names'", "court 'default' does not hear", "grounding, figures"]),
    (a_ruling(witnesses={"figures": WITNESSES["figures"].version + 1}), HEARD, "0.5", "default",
     [f"version {WITNESSES['figures'].version + 1}", f"is version {WITNESSES['figures'].version}"]),
    (a_ruling(witnesses={"figures": WITNESSES["figures"].version, "hidden": 1}, hidden_depth=0.25,
              probes={"hidden": Probe(source="hidden", linear=Linear(features=[], mean=[0.0], scale=[1.0],
                                                                     weights=[1.0], intercept=0.0))}),
     HEARD, "0.5", "default", ["depth 0.25", "hidden_depth is 0.5"]),
    (a_ruling(hidden_depth=0.75, spans=SpanModel(  # a word probe alone reads the hidden state at its depth too
        linear=Linear(features=[*FEATURES, WORD_PROBE], mean=[0.0] * (len(FEATURES) + 1),
                      scale=[1.0] * (len(FEATURES) + 1), weights=[0.0] * (len(FEATURES) + 1), intercept=0.0),
        probe=Probe(source="hidden", linear=Linear(features=[], mean=[0.0], scale=[1.0], weights=[1.0], intercept=0.0)))),
     HEARD, "0.5", "default", ["depth 0.75", "hidden_depth is 0.5"]),
])
def test_a_ruling_for_another_model_court_witness_version_or_depth_is_refused_naming_both(
        tmp_path: Path, ruling: FittedRuling, heard: str, depth: str, filed_under: str, both: list[str]) -> None:
    path = court_file(tmp_path, ruling, heard, depth, filed_under)
    with pytest.raises(CourtError) as caught:
        load_court(path, BackendSpec(model="default"))
    message = str(caught.value)
    assert str(path) in message and "witnesses.rulings.default" in message
    for side in both:
        assert side in message, (side, message)


def test_check_ruling_accepts_the_ruling_it_was_fitted_for() -> None:
    spec = load_court("default").spec
    check_ruling(a_ruling(), spec, "default", "here")               # `default` is smollm2-135m
    check_ruling(a_ruling(), spec, "smollm2-135m", "here")
    with pytest.raises(CourtError, match="^here: the ruling was fitted for model 'smollm2-135m', and is filed under "
                                         "'qwen2.5-coder-1.5b'"):
        check_ruling(a_ruling(), spec, "qwen2.5-coder-1.5b", "here")


def test_a_court_that_extends_another_accepts_its_rulings_and_no_third(tmp_path: Path) -> None:
    ruling = tmp_path / "rulings" / "r.yaml"
    ruling.parent.mkdir()
    ruling.write_text(yaml.safe_dump(a_ruling(court="default").model_dump(mode="json")))
    child = tmp_path / "mine.yaml"
    child.write_text("name: mine\nextends: default\nwitnesses: {rulings: {default: rulings/r.yaml}}\n")
    assert load_court(child, BackendSpec(model="default")).ruling is not None  # the default court's ruling decides
    ruling.write_text(yaml.safe_dump(a_ruling(court="full").model_dump(mode="json")))
    with pytest.raises(CourtError, match="fitted for court 'full', not for court 'mine' \\(nor for default, which it "
                                         "extends\\)"):
        load_court(child, BackendSpec(model="default"))
    with pytest.raises(CourtError, match="not for court 'default'$"):  # and the default court takes no other's
        check_ruling(a_ruling(court="mine"), load_court("default").spec, "default", "here")

@pytest.mark.parametrize("text", ["kind: courtroom-ruling\nmodel: m\n", "- just\n- a list\n", "court: [unclosed\n",
                                  "kind: courtroom-court\nname: default\n"])
def test_a_file_that_is_not_a_ruling_is_refused_naming_it(tmp_path: Path, text: str) -> None:
    path = court_file(tmp_path, text)
    with pytest.raises(CourtError) as caught:
        load_court(path, BackendSpec(model="default"))
    assert str(tmp_path / "rulings" / "r.yaml") in str(caught.value)


def test_a_missing_ruling_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = court_file(tmp_path, None)
    path.write_text(path.read_text().replace("  hidden_depth: 0.5\n", "  hidden_depth: 0.5\n  rulings: {default: "
                                                                       "nowhere.yaml}\n"))
    with pytest.raises(CourtError, match="nowhere.yaml"):
        load_court(path, BackendSpec(model="default"))


YES_NO = Case(id="sunday", question="Is the bakery open on Sundays?",
              context=["Millbrook Bakery opens at 8:30 on Saturdays. It is closed on Sundays."],
              answer=" Yes, it opens on Sundays. Zorba Pastries runs it.")


def judged(case: Case, inside: tuple[str, ...] = (), ruling: FittedRuling | None = None,
           tmp_path: Path | None = None) -> tuple[CaseVerdict, ScriptedBackend]:
    # the test's ruling is filed under `default`; without one, a model no shipped ruling is fitted for
    backend = ScriptedBackend(PseudoModel(), model="default" if ruling is not None else "pseudo", looks_inside=inside)
    if ruling is None:
        return load_court("default", backend).judge(case), backend
    assert tmp_path is not None
    return load_court(court_file(tmp_path, ruling), backend).judge(case), backend


def test_the_witness_step_asks_the_model_what_its_witnesses_need_and_no_more() -> None:
    verdict, backend = judged(YES_NO)
    observed = [r.observe for r in backend.calls if r.observe is not None]
    [observe] = observed  # the scoring pass with the context asks to look inside, once
    assert observe.lookback and observe.hidden == (0.5,)
    assert observe.spans[-1] == (0, len(YES_NO.answer.strip())) and len(observe.spans) == 3  # 2 sentences, whole
    assert sum(1 for r in backend.calls if set(r.spec.options) == {"yes", "no"}) == 1  # the verdict witness asks
    heard = {t.witness: t for t in verdict.testimony}
    assert not heard["lookback"].heard and "reports no attention" in heard["lookback"].why_not
    assert heard["verdict"].heard and heard["names"].values["absent"] == 1.0
    open_question = YES_NO.model_copy(update={"id": "when", "question": "When does the bakery open?"})
    _, backend = judged(open_question)
    assert not any(set(r.spec.options) == {"yes", "no"} for r in backend.calls)  # not a yes/no question: not asked


def test_a_backend_that_looks_inside_lets_the_lookback_and_hidden_witnesses_testify() -> None:
    verdict, _ = judged(YES_NO, inside=("attention", "hidden_states"))
    heard = {t.witness: t for t in verdict.testimony}
    assert heard["lookback"].heard and 0 < heard["lookback"].values["mean"] < 1
    assert len(heard["lookback"].sentences) == 2 and heard["hidden"].heard


def probe_ruling(width: int) -> FittedRuling:
    return a_ruling(witnesses={"figures": WITNESSES["figures"].version, "names": WITNESSES["names"].version,
                               "lookback": WITNESSES["lookback"].version},
                    probes={"lookback": Probe(source="lookback", linear=Linear(
                        features=[], mean=[0.5] * width, scale=[0.1] * width, weights=[1.0] * width, intercept=0.0))},
                    families={"any": FamilyRuling(linear=Linear(
                        features=["names.absent", "lookback.probe"], mean=[0.0, 0.0], scale=[1.0, 1.0],
                        weights=[4.0, 0.5], intercept=-1.0))})


def test_a_ruling_decides_by_the_testimony_and_names_what_it_could_not_weigh(tmp_path: Path) -> None:
    ruling = probe_ruling(4)  # the pseudo-model's 2 layers x 2 heads
    blind, _ = judged(YES_NO, ruling=ruling, tmp_path=tmp_path)
    assert blind.weighing is not None and blind.weighing.missing == ["lookback.probe"]
    assert blind.weighing.contributions["names.absent"] == pytest.approx(4.0)
    assert blind.label == "FAIL" and "Not heard, so not weighed: lookback.probe" in blind.reason
    # the charged sentence is the one whose own testimony the ruling weighs highest: the invented name's
    assert [c.quote for c in blind.charges] == ["Zorba Pastries runs it."]
    # its ruling quotes what the witnesses pointed at in that sentence, not at the answer's start ("Yes, ")
    [decided] = blind.rulings
    assert decided.source == "testimony" and "names: the context never names it" in decided.reason
    assert "0.6 nats" not in decided.reason
    seeing, _ = judged(YES_NO, inside=("attention", "hidden_states"), ruling=ruling, tmp_path=tmp_path)
    assert seeing.weighing.missing == [] and "lookback.probe" in seeing.weighing.contributions
    assert seeing.weighing.log_odds == pytest.approx(blind.weighing.log_odds +
                                                     seeing.weighing.contributions["lookback.probe"], abs=1e-5)


def test_a_probe_for_another_models_width_fails_the_case_naming_the_cause(tmp_path: Path) -> None:
    with pytest.raises(CaseFailedError, match="ConfigError: the ruling's lookback probe weighs 270 values, the "
                                              "model's pass gave 4: the ruling was fitted for another model"):
        judged(YES_NO, inside=("attention", "hidden_states"), ruling=probe_ruling(270), tmp_path=tmp_path)
