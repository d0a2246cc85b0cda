"""Sentence splitters compared (issue 22.4): the court's `regex` and `structured` splitters beside libraries that
work offline from a pip install (pysbd, syntok, blingfire; each left out when not installed), on the dev
contexts of ../shared/data (read in place, never copied) and on a small hand-cut set of hard prose.

For every splitter and data set: contexts, sentences (mean and median per context), and what looks broken:
- short: pieces of fewer than 3 words (a JSON field such as `state: CA` counts too);
- no letters: pieces without a letter (`$`, `4,835`, `2.`, `}]}`);
- unbalanced: pieces whose brackets or double quotes do not pair (a JSON record cut open);
- after abbreviation: a cut right after "Dr.", "e.g.", "U.S.", "Fig.", an initial and the like;
- in a number: a cut between the digits of "3.5";
- joined: pieces holding a likely sentence end inside (`word. Capital` after no abbreviation), which
  splitters that under-split leave; a JSON record holding a review counts here by design;
and the time to split 1000 contexts, uncached. The gold set counts passages split exactly as a person would.

Usage: python benchmarks/bench_sentences.py [--data ../shared/data] [--json benchmarks/results/sentences.json]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from courtroom.text.sentences import split, structured_sentences

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
FILES = ("halubench-dev.jsonl", "ragtruth-dev.jsonl", "halueval-dev.jsonl")

GOLD: list[tuple[str, list[str]]] = [
    ("Dr. Smith arrived at 9 a.m. on Monday. He left early.", ["Dr. Smith arrived at 9 a.m. on Monday.", "He left early."]),
    ("The U.S. Army base opened in 1941. It closed in 1995.", ["The U.S. Army base opened in 1941.", "It closed in 1995."]),
    ("Revenue rose to $3.5 million. Margins were 12.5% lower.", ["Revenue rose to $3.5 million.", "Margins were 12.5% lower."]),
    ("John F. Kennedy was born in 1917. He was elected in 1960.", ["John F. Kennedy was born in 1917.", "He was elected in 1960."]),
    ("Some fruits, e.g. apples, keep well. Others do not.", ["Some fruits, e.g. apples, keep well.", "Others do not."]),
    ("Smith et al. (2019) measured it. See Fig. 3 for the curve.", ["Smith et al. (2019) measured it.", "See Fig. 3 for the curve."]),
    ('"We are thrilled," said Ms. Ruiz. "The timing was right." Sales doubled.',
     ['"We are thrilled," said Ms. Ruiz.', '"The timing was right."', "Sales doubled."]),
    ("It was fine... Then it rained. Was it cold? Yes!", ["It was fine...", "Then it rained.", "Was it cold?", "Yes!"]),
    ("The study (n = 40) ended early. Results are in Table 2.", ["The study (n = 40) ended early.", "Results are in Table 2."]),
    ("Prof. A. B. Jones leads the lab. St. Louis is nearby.", ["Prof. A. B. Jones leads the lab.", "St. Louis is nearby."]),
    ("He paid approx. 40 dollars. The receipt is lost.", ["He paid approx. 40 dollars.", "The receipt is lost."]),
    ("Steps: 1. Mix the flour. 2. Add water. 3. Bake.", ["Steps: 1. Mix the flour.", "2. Add water.", "3. Bake."]),
    ("The firm is based in Santa Barbara, CA. It employs 40 people.",
     ["The firm is based in Santa Barbara, CA.", "It employs 40 people."]),
    ("Mr. and Mrs. Lee moved on Dec. 31, 2019. They sold the house.",
     ["Mr. and Mrs. Lee moved on Dec. 31, 2019.", "They sold the house."]),
    ("The tower is in Manhattan.The bank is next to it.", ["The tower is in Manhattan.", "The bank is next to it."]),
    ("Version 2.0 shipped in May. Version 2.1 fixed a bug.", ["Version 2.0 shipped in May.", "Version 2.1 fixed a bug."]),
    ("She holds a Ph.D. in physics. Her thesis was on lasers.", ["She holds a Ph.D. in physics.", "Her thesis was on lasers."]),
    ("Call No. 5 first. Then call the office.", ["Call No. 5 first.", "Then call the office."]),
    ("He said 'enough.' Then he left the room.", ["He said 'enough.'", "Then he left the room."]),
    ("The vote was 5 vs. 3. The motion passed.", ["The vote was 5 vs. 3.", "The motion passed."]),
]
"""Hard prose, cut by hand."""

ABBREVIATION = re.compile(r"(?:^|[\s(])(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|Gen|Col|Lt|Sgt|Capt|Rev|Gov|Sen|Rep|vs|e\.g|i\.e|"
                          r"cf|al|approx|Fig|Figs|No|Vol|pp|U\.S|U\.K|Ph\.D|[A-Z])\.$")
SENTENCE_INSIDE = re.compile(r"(?<![A-Z])\b([A-Za-z][a-z]+)[.!?][\"”']?\s+[\"“]?[A-Z][a-z]+")
SHORT_WORDS = 3


def load_contexts(data: Path) -> dict[str, list[str]]:
    """The passages of each dev file's contexts."""
    out = {}
    for name in FILES:
        path = data / name
        if path.is_file():
            with path.open(encoding="utf-8") as handle:
                out[name.removesuffix(".jsonl")] = [p for line in handle if line.strip()
                                                   for p in json.loads(line)["context"]]
    return out


def splitters() -> dict[str, Callable[[str], list[str]]]:
    """Every splitter to compare: the court's two, and each library that is installed."""
    found: dict[str, Callable[[str], list[str]]] = {
        "regex": lambda t: list(split.__wrapped__(t, "regex")),
        "structured": lambda t: list(split.__wrapped__(t, "structured")),
    }
    try:
        import pysbd

        segmenter = pysbd.Segmenter(language="en", clean=False)
        found["pysbd"] = lambda t: [s.strip() for s in segmenter.segment(t) if s.strip()]
        found["structured + pysbd prose"] = lambda t: [" ".join(s.split()) for s in structured_sentences(
            t, prose=lambda p: [s.strip() for s in segmenter.segment(p) if s.strip()]) if s.strip()]
    except ImportError:
        pass
    try:
        from syntok import segmenter as syntok

        found["syntok"] = lambda t: [s for s in ("".join(str(token) for token in sentence).strip()
                                                 for paragraph in syntok.analyze(t) for sentence in paragraph) if s]
    except ImportError:
        pass
    try:
        import blingfire

        found["blingfire"] = lambda t: [s for s in blingfire.text_to_sentences(t).split("\n") if s.strip()]
    except ImportError:
        pass
    return found


def balanced(text: str) -> bool:
    pairs = {"(": ")", "[": "]", "{": "}"}
    stack = []
    for ch in text:
        if ch in pairs:
            stack.append(pairs[ch])
        elif ch in pairs.values():
            if not stack or stack.pop() != ch:
                return False
    return not stack and text.count('"') % 2 == 0


def measure(cut: Callable[[str], list[str]], contexts: list[str]) -> dict[str, float]:
    counts, short, letterless, unbalanced, after_abbreviation, in_number, joined = [], 0, 0, 0, 0, 0, 0
    start = time.perf_counter()
    pieces = [cut(c) for c in contexts]
    seconds = time.perf_counter() - start
    for context, sentences in zip(contexts, pieces):
        counts.append(len(sentences))
        for i, s in enumerate(sentences):
            short += len(s.split()) < SHORT_WORDS
            letterless += not any(ch.isalpha() for ch in s)
            unbalanced += not balanced(s)
            joined += any(m.group(1).lower() not in ("dr", "mr", "mrs", "ms", "st", "al", "vs", "no")
                          for m in SENTENCE_INSIDE.finditer(s))
            if i + 1 < len(sentences):
                nxt = sentences[i + 1]
                after_abbreviation += bool(ABBREVIATION.search(s)) and nxt[:1].isupper()
                in_number += bool(re.search(r"\d\.$", s)) and nxt[:1].isdigit() and (s + nxt) in context
    total = max(sum(counts), 1)
    return {"contexts": len(contexts), "sentences": sum(counts), "mean": statistics.mean(counts),
            "median": statistics.median(counts), "short": short / total, "no letters": letterless / total,
            "unbalanced": unbalanced / total, "after abbreviation": after_abbreviation, "in a number": in_number,
            "joined": joined / total, "ms per 1000": 1000 * seconds / len(contexts) * 1000}


def gold(cut: Callable[[str], list[str]]) -> int:
    return sum([" ".join(s.split()) for s in cut(text)] == expected for text, expected in GOLD)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path, help="also write the numbers here")
    args = parser.parse_args()
    data = load_contexts(args.data)
    if not data:
        raise SystemExit(f"no dev data in {args.data} (see ../shared/data/README.md)")
    found = splitters()
    results: dict[str, dict[str, dict[str, float]]] = {}
    for name, cut in found.items():
        results[name] = {dataset: measure(cut, contexts) for dataset, contexts in data.items()}
        results[name]["gold"] = {"right": gold(cut), "of": len(GOLD)}
    columns = ("contexts", "sentences", "mean", "median", "short", "no letters", "unbalanced", "after abbreviation",
               "in a number", "joined", "ms per 1000")
    print("| splitter | data | " + " | ".join(columns) + " |")
    print("|---|---|" + "---:|" * len(columns))
    for name, by_data in results.items():
        for dataset in data:
            row = by_data[dataset]
            cells = [f"{row[c]:.1%}" if c in ("short", "no letters", "unbalanced", "joined") else
                     f"{row[c]:.1f}" if c in ("mean", "median", "ms per 1000") else f"{row[c]:,}" for c in columns]
            print(f"| {name} | {dataset} | " + " | ".join(cells) + " |")
    print("\nhand-cut prose passages split exactly right:")
    for name, by_data in results.items():
        print(f"  {name}: {by_data['gold']['right']} of {by_data['gold']['of']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
