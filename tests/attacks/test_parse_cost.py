"""Attack (#58, low): what accepted files cost to read. A YAML integer of more than 4,300 digits ended every court,
ruling, persona and prior file (and `--set`) in a ValueError traceback; a ruling was parsed twice (about 8 s of CPU a
MB: one at the 32 MB limit took minutes) and printed one line per error (thousands); `read_prior` (`--prior`, `label
--ruling`, `view --prior`) read a file of any size. Now: one line naming the file and line, one composition of each
file (by libyaml's parser where PyYAML has it), twenty errors named and the rest counted, a prior's size capped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from courtroom.calibrate.prior_runs import read_prior
from courtroom.court.personas import Persona
from courtroom.courts import load_court
from courtroom.courts.files import MAX_RULING_BYTES
from courtroom.errors import ConfigError, CourtError, PersonaError
from tests.helpers.cli import invoke
from tests.helpers.rulings import SHIPPED, court_with, shipped_ruling

BIG = "1" * 5000
"""An integer Python does not read from text (over `sys.get_int_max_str_digits()`, 4,300)."""


def test_an_integer_of_thousands_of_digits_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    said = "invalid YAML: an integer of 5000 characters, more than courtroom reads"
    persona = tmp_path / "persona.yaml"
    persona.write_text(f"name: big\nrole: judge\ndescription: d\ninstructions: Rule.\nseed: {BIG}\n")
    with pytest.raises(PersonaError, match=f"{persona}:5: {said}"):
        Persona.from_file(persona)
    court = tmp_path / "court.yaml"
    court.write_text((SHIPPED / "default.yaml").read_text() + f"limit: {BIG}\n")
    line = len(court.read_text().splitlines())
    code, output = invoke("court", "validate", str(court))
    assert code == 2 and f"{court}:{line}: {said}" in output, output
    ruling = tmp_path / "rulings" / "ruling.yaml"
    ruling.parent.mkdir()
    ruling.write_text(f"{yaml.safe_dump(shipped_ruling())}depth: {BIG}\n")
    line = len(ruling.read_text().splitlines())
    with pytest.raises(CourtError, match=f"{ruling}:{line}: {said}"):
        load_court(court_with(tmp_path / "rulings", str(ruling)))
    with pytest.raises(ConfigError, match=f"{ruling}:{line}: {said}"):
        read_prior(ruling)
    code, output = invoke("run", "examples", "--limit", "1", "--set", f"max_charges={BIG}", "--out", str(tmp_path / "r"))
    assert code == 2 and "--set 'max_charges=" in output and "not valid YAML" in output, output


def test_a_ruling_is_composed_once_and_names_twenty_of_its_thousand_errors(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    ruling = shipped_ruling()
    ruling["families"]["any"]["linear"]["weights"] = ["heavy"] * 1000
    path = tmp_path / "ruling.yaml"
    path.write_text(yaml.safe_dump(ruling))
    composed: list[int] = []
    compose = yaml.composer.Composer.compose_document
    monkeypatch.setattr(yaml.composer.Composer, "compose_document", lambda self: composed.append(1) or compose(self))
    with pytest.raises(ConfigError) as refused:
        read_prior(path)
    lines = str(refused.value).splitlines()
    assert composed == [1], "the file was composed more than once"
    assert len(lines) == 22 and lines[-1] == f"{path}: and 980 more errors", lines[-3:]


def test_a_prior_is_a_regular_file_of_at_most_the_size_of_a_ruling(tmp_path: Path) -> None:
    huge = tmp_path / "huge.yaml"
    with huge.open("wb") as handle:  # sparse: nothing is written, nothing should be read
        handle.truncate(MAX_RULING_BYTES + 1)
    with pytest.raises(ConfigError, match=f"--prior {huge}: {huge} is {MAX_RULING_BYTES + 1} bytes, over the"):
        read_prior(huge)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    with pytest.raises(ConfigError, match=f"--prior {fifo}: {fifo} is not a regular file"):
        read_prior(fifo)
