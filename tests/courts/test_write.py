"""A recorded court written out as a court file reads back as the same court: every shipped court, and one whose
persona changed since (written beside it, as recorded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from courtroom.courts import load_court, read_court
from courtroom.courts.files import shipped_courts
from courtroom.courts.write import draft_court
from courtroom.door.spec import BackendSpec


def written(config: dict, path: Path, header: str = "") -> Path:
    for file, text in draft_court(config, path).files(header).items():
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(text)
    return path


@pytest.mark.parametrize("name", shipped_courts())
def test_a_shipped_court_written_from_its_record_reads_back_as_the_same_court(name: str, tmp_path: Path) -> None:
    config = load_court(name, BackendSpec(model="smollm2-135m")).config()
    path = written(config, tmp_path / "courts" / f"{name}.yaml", header=f"# {name}, written out\n")
    assert path.read_text().startswith(f"# {name}, written out\n") and "extends" not in read_court(path).data
    assert load_court(path, BackendSpec(model="smollm2-135m")).config() == config
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # its personas found as recorded, by name


def test_a_persona_changed_since_the_run_is_written_beside_the_court_as_recorded(tmp_path: Path) -> None:
    config = load_court("full", BackendSpec(model="smollm2-135m")).config()
    judge = config["personas"]["judge"][0]
    config["personas"]["judge"][0] = {**judge, "instructions": judge["instructions"] + "\nBe brief."}
    path = written(config, tmp_path / "mine.yaml")
    assert read_court(path).data["trial"]["personas"]["judge"] == f"mine.{judge['name']}.yaml"
    loaded = load_court(path, BackendSpec(model="smollm2-135m")).config()
    assert loaded["personas"] == config["personas"]  # the same personas, the judge's now named by its file
    assert loaded["court"]["trial"].pop("personas")["judge"] == f"mine.{judge['name']}.yaml"
    assert loaded["court"] == {**config["court"], "trial": {k: v for k, v in config["court"]["trial"].items()
                                                            if k != "personas"}}


def test_the_format_is_frozen_at_the_migration_the_development_page_names() -> None:
    """A retirement adds a `RetiredSetting`, a new setting takes the old behaviour as its default: no court 18."""
    from courtroom.courts.migrations import MIGRATIONS

    last = MIGRATIONS[-1].name.split(":")[0]
    page = (Path(__file__).resolve().parents[2] / "docs" / "development.md").read_text()
    assert last == "court 17" and f"Its last migration is **{last}**" in page
