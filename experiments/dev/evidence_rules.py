"""The court's two measures, grounding (model likelihoods) and lexical support (words the sources never
use), re-decided offline from token_probe.py output (--whole-only) and the dataset's text, for a grid of
ways to combine them per sentence and to aggregate sentences into the case score.

    PYTHONPATH=. python experiments/dev/evidence_rules.py experiments/probes/qwen-hb-tune.jsonl experiments/probes/qwen-rt-tune.jsonl

Ranks rules by cross-validated balanced accuracy (each fold thresholded at the best threshold of the
others) over all files together, and prints it per file. Only for choosing the court on tuning cases.
"""

from __future__ import annotations

import argparse
import itertools
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from courtroom.evaluate.datasets import load_file
from courtroom.evaluate.metrics import auroc
from courtroom.text.words import Vocabulary, content_words
from courtroom.witness.grounding import p_suspect
from experiments.dev.tune_court import best_threshold, cross_validated

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def sentences(case: dict, text: dict, clip: float) -> list[dict]:
    """Per sentence: characters, grounding (clipped PMI), grounding with lexically supported words at full
    credit, and the share of its content words the sources never use."""
    answer = text["answer"]
    vocab = Vocabulary([*text["context"], text["question"]])
    ctx, bare = np.array(case["ctx"]), np.array(case["bare"])
    gain = np.minimum(ctx - bare, clip)
    offsets = case["offsets"]
    out = []
    for start, end in case["sentences"]:
        idx = [i for i, (a, b) in enumerate(offsets) if a < end and b > start]
        if not idx:
            continue
        words = content_words(answer[start:end])
        missing = vocab.unsupported(words)
        supported_spans = [(start + w.start, start + w.end) for w in words if w not in missing]
        credited = [clip if any(a < e and b > s for s, e in supported_spans) else gain[i]
                    for i, (a, b) in zip(idx, (offsets[i] for i in idx))]
        keys = {w.key for w in words}
        out.append({"chars": end - start, "g": float(np.mean(gain[idx])), "g_lex": float(np.mean(credited)),
                    "u": len({w.key for w in missing}) / len(keys) if keys else 0.0, "n": len(keys)})
    return out


Rule = Callable[[list[dict]], float]


def per_sentence(kind: str, center: float, scale: float, lex_center: float, lex_scale: float) -> Callable[[dict], float]:
    if kind == "pmi":
        return lambda s: p_suspect(s["g"], center, scale)
    if kind == "pmi-lexcredit":
        return lambda s: p_suspect(s["g_lex"], center, scale)
    if kind == "lex":
        return lambda s: p_suspect(lex_center, s["u"], lex_scale)  # rising with u
    return lambda s: p_suspect(s["g"], center, scale, (s["u"] - lex_center) / lex_scale)


def aggregate(ps: list[float], chars: list[int], how: str) -> float:
    if how == "share":
        return float(np.dot(ps, chars) / sum(chars))
    if how == "max":
        return max(ps)
    return 1.0 - float(np.prod([1.0 - p for p in ps]))  # noisy-or: P(any statement is hallucinated)


def describe(gold: np.ndarray, scores: np.ndarray) -> str:
    if gold.all() or not gold.any() or min(gold.sum(), (~gold).sum()) < 5:
        return "-"
    return f"{cross_validated(gold, scores):.3f}/{auroc(gold, scores):.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+")
    parser.add_argument("--top", type=int, default=30)
    args = parser.parse_args()
    texts = {}
    for name in ("halubench", "ragtruth"):
        texts |= {c.id: {"answer": c.answer.strip(), "context": c.context, "question": c.question}
                  for c in load_file(DATA / f"{name}-dev.jsonl")}
    cases, origin = [], []
    for k, path in enumerate(args.files):
        for line in open(path):
            case = json.loads(line)
            cases.append(case)
            origin.append(k)
    origin = np.array(origin)
    gold = np.array([c["label"] == "FAIL" for c in cases])
    print(f"{len(cases)} cases ({gold.sum()} FAIL): " + ", ".join(f"{Path(p).stem} {np.sum(origin == k)}"
                                                            for k, p in enumerate(args.files)))
    per_clip = {clip: [sentences(c, texts[c["id"]], clip) for c in cases] for clip in (1.0, 2.0)}
    rows = []
    grid = itertools.product(["pmi", "pmi-lexcredit", "lex", "pmi+lex"], [1.0, 2.0], [0.2, 0.4, 0.6], [0.3],
                             [0.2, 0.35, 0.5], [0.1, 0.2], ["share", "max", "noisy-or"])
    seen = set()
    for kind, clip, center, scale, lex_center, lex_scale, how in grid:
        key = (kind, clip if kind != "lex" else None, center if kind != "lex" else None,
               lex_center if "lex" in kind and kind != "pmi-lexcredit" else None,
               lex_scale if "lex" in kind and kind != "pmi-lexcredit" else None, how)
        if key in seen:
            continue
        seen.add(key)
        p = per_sentence(kind, center, scale, lex_center, lex_scale)
        scores = np.array([aggregate([p(s) for s in sts], [s["chars"] for s in sts], how) if sts else 0.0
                           for sts in per_clip[clip]])
        rows.append((cross_validated(gold, scores), auroc(gold, scores), key, scores))
    rows.sort(key=lambda r: -r[0])
    print("cv bal | AUROC | rule (kind, clip, center, lex center, lex scale, aggregation) | per file: cv bal/AUROC "
          "| threshold on all")
    for cv, auc, key, scores in rows[: args.top]:
        per_file = " ".join(describe(gold[origin == k], scores[origin == k]) for k in range(len(args.files)))
        print(f"{cv:.3f} | {auc:.3f} | {key} | {per_file} | {best_threshold(gold, scores):.3f}")


if __name__ == "__main__":
    main()
