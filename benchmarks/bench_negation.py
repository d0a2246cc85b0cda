"""How the polarity witness's cost grows with the answer and with a long context sentence (#50: one 13 KB context
sentence and a 40-sentence answer cost 28-30 s of CPU: the sentence was read again for every answer sentence, and
each word of it was compared with every cue's scope).

The witness hears answers of 10 to 400 sentences against one context sentence of 920 symptoms, each negated, in one
clause ("no fever0, no cough1, ... reported.", 13 KB; `tests.helpers.cases.negated_list`), each answer sentence
asserting two words the context negates; then a one-sentence answer against context sentences of 3 to 27 KB. CPU
time, the best of 5 runs. The context sentence is read once a case, so the time per answer sentence falls as the answer
grows (the read is shared) and must never grow (target: the longest answer's over the shortest's <= 2); and a context
sentence is read in linear time: the time per KB stays flat (within 2x). Before #50 the time per answer sentence was
flat too, but it was the time to read the whole context sentence, which grew with its square.

Usage: python benchmarks/bench_negation.py [--sizes 10 25 50 100 200 400] [--words 230 460 920 1840]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from courtroom.text.sentences import sentence_spans  # noqa: E402
from courtroom.witness import polarity  # noqa: E402
from courtroom.witness.reading import Reading  # noqa: E402
from tests.helpers.cases import negated_list_case  # noqa: E402

RESULTS = HERE / "results" / "negation.json"


def cpu_s(sentences: int, words: int) -> float:
    """The polarity witness's CPU time on `negated_list_case(sentences, words)`, the best of 5."""
    case = negated_list_case(sentences, words)
    reading = Reading.of(case, sentence_spans(case.answer.strip()), case.context)
    assert len(reading.sentences) == sentences
    best = float("inf")
    for _ in range(5):
        start = time.process_time()
        testimony = polarity.testify(reading)
        best = min(best, time.process_time() - start)
    assert testimony.values["flipped"] == 1.0  # every answer sentence compared with the context sentence
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 25, 50, 100, 200, 400])
    parser.add_argument("--words", type=int, nargs="+", default=[230, 460, 920, 1840])
    args = parser.parse_args()
    cpu_s(10, 100)  # warm up: imports, compiled patterns
    kb = len(negated_list_case(1, 920).context[0].encode()) / 1000
    answers = []
    for n in args.sizes:
        seconds = cpu_s(n, 920)
        answers.append({"answer_sentences": n, "cpu_s": seconds, "ms_per_sentence": 1000 * seconds / n})
        print(f"{n:4d} answer sentences, {kb:.1f} KB context sentence: {1000 * seconds:7.1f} ms CPU, "
              f"{1000 * seconds / n:.2f} ms an answer sentence", flush=True)
    contexts = []
    for words in args.words:
        size = len(negated_list_case(1, words).context[0].encode()) / 1000
        seconds = cpu_s(1, words)
        contexts.append({"context_kb": size, "cpu_s": seconds, "ms_per_kb": 1000 * seconds / size})
        print(f"   1 answer sentence,  {size:5.1f} KB context sentence: {1000 * seconds:7.1f} ms CPU, "
              f"{1000 * seconds / size:.2f} ms a KB", flush=True)
    first, last = answers[0], answers[-1]
    slope = statistics.linear_regression([r["answer_sentences"] for r in answers], [r["cpu_s"] for r in answers]).slope
    per_kb = [r["ms_per_kb"] for r in contexts]
    report = {"witness": "polarity", "context_kb": kb, "answers": answers, "contexts": contexts,
              "longest_over_shortest": last["ms_per_sentence"] / first["ms_per_sentence"],
              "ms_per_added_sentence": 1000 * slope, "per_kb_spread": max(per_kb) / min(per_kb)}
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"time per answer sentence, longest answer over shortest: {report['longest_over_shortest']:.2f} "
          f"(target <= 2); each added answer sentence {report['ms_per_added_sentence']:.2f} ms (least squares); "
          f"time per KB of context, max over min: {report['per_kb_spread']:.2f} (target <= 2)")


if __name__ == "__main__":
    main()
