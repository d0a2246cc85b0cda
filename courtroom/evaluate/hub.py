"""Cases from a Hugging Face dataset repository's parquet files (`hf:org/name[:split]`)."""

from __future__ import annotations

import re
from pathlib import Path

from courtroom.case import Case
from courtroom.errors import DatasetError
from courtroom.evaluate.dataset_files import parquet_rows
from courtroom.evaluate.datasets import LoadReport, validate_rows

KNOWN_SPLITS = ("train", "validation", "valid", "dev", "test")

HUB_FIELD_MAPS: dict[str, dict[str, str]] = {"PatronusAI/HaluBench": {"context": "passage",
                                                                      "source": "source_ds"}}
"""Column mappings of known Hub datasets, applied under any `--field` the user gives."""


def hub_field_map(name: str, field_map: dict[str, str] | None) -> dict[str, str]:
    """The mapping for a Hub dataset: its known columns, then the user's `--field` mappings over them."""
    return {**HUB_FIELD_MAPS.get(name, {}), **(field_map or {})}


def file_split(path: str) -> str | None:
    """The split a dataset repository's parquet file belongs to, from its folder (`test/0000.parquet`)
    or its name (`data/test-00000-of-00001.parquet`), when it names one."""
    folders = Path(path).parent.parts
    first_word = re.split(r"[-_.]", Path(path).name, maxsplit=1)[0]
    for word in (*reversed(folders), first_word):
        if word.lower() in KNOWN_SPLITS:
            return word.lower()
    return None


def choose_split_files(name: str, files: list[str], split: str | None) -> list[str]:
    """The parquet files of one split: the named one, else `test`, else (a repository without splits)
    all of them. A missing split is an error that lists the available ones."""
    if not files:
        raise DatasetError(f"hf:{name}: the dataset has no parquet files")
    splits = {f: file_split(f) for f in files}
    available = sorted({s for s in splits.values() if s})
    wanted = split or ("test" if "test" in available or not available else None)
    if wanted is None:
        raise DatasetError(f"hf:{name}: no test split; name one: " + ", ".join(f"hf:{name}:{s}"
                                                                               for s in available))
    if not available and split is None:
        return files
    chosen = [f for f, s in splits.items() if s == wanted.lower()]
    if not chosen:
        raise DatasetError(f"hf:{name}: no split {wanted!r}; available: "
                           f"{', '.join(available) or 'none named'}")
    return chosen


def load_hf(name: str, split: str | None = None, field_map: dict[str, str] | None = None,
            skip_invalid: bool = False, report: LoadReport | None = None) -> list[Case]:
    """Cases from a Hugging Face dataset repository's parquet files (default split `test`)."""
    from huggingface_hub import HfApi, hf_hub_download

    try:
        files = [f for f in HfApi().list_repo_files(name, repo_type="dataset") if f.endswith(".parquet")]
    except Exception as exc:  # network errors and 404s come as many exception types
        raise DatasetError(f"hf:{name}: cannot reach the Hugging Face Hub or no such dataset "
                           f"({type(exc).__name__}: {exc}); download the data and pass a local file") from exc
    chosen = choose_split_files(name, files, split)
    rows = [row for file in chosen for row in parquet_rows(Path(hf_hub_download(name, file,
                                                                                repo_type="dataset")))]
    return validate_rows(rows, name.split("/")[-1], hub_field_map(name, field_map), skip_invalid,
                          report or LoadReport(f"hf:{name}"))
