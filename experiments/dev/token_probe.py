"""Token-level likelihoods of answers, with and without the context, for offline study of evidence measures.

For every case: the whole answer scored as the reply after the court's opening (numbered context and
question) and after the question alone, token by token, plus every answer sentence scored alone the
way the shipped court's indictment does. Writes one JSON line per case (numbers and character offsets
into the answer; no dataset text), so measures can be compared without the model:

    python experiments/dev/token_probe.py --dataset halubench --exclude \\
        experiments/results/qwen2.5-coder-0.5b/halubench-courtroom --limit 200 --out /tmp/tok-hb-tune.jsonl
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Literal

from courtroom.case import Case
from courtroom.casefile import render_opening
from courtroom.clerk.grounding import SYSTEM, scoring_request
from courtroom.door.requests import ChatMessage, GenerationRequest, Sampling
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.datasets import load_file
from courtroom.evaluate.selection import select
from courtroom.log.cases import excluded_case_ids
from courtroom.text.sentences import split

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"


def scoring(case: Case, text: str, with_context: bool) -> GenerationRequest:
    user = render_opening(case) if with_context else f"QUESTION: {case.question.strip()}"
    return GenerationRequest(messages=(SYSTEM, ChatMessage(role="user", content=user)),
                             output_type=Literal[(text,)], sampling=Sampling(max_new_tokens=4096), cache_group=case.id)


def probe(backend: TransformersBackend, case: Case, whole_only: bool = False) -> dict:
    answer = case.answer.strip()
    sentences = split(answer, render=False) or (answer,)
    calls = [scoring_request(case, answer, "full"), scoring_request(case, answer, "none")]  # the court's own requests
    if not whole_only:
        calls += [scoring(case, s, True) for s in sentences] + [scoring(case, s, False) for s in sentences]
    out = backend.generate(calls)
    backend.release(case.id)
    n = len(sentences)
    spans, cursor = [], 0
    for s in sentences:
        start = answer.find(s, cursor)
        spans.append([start, start + len(s)])
        cursor = max(cursor, start + len(s))
    row = {"id": case.id, "source": case.source, "label": case.label, "answer_chars": len(answer),
           "answer_words": len(answer.split()), "offsets": [list(o) for o in out[0].token_spans],
           "ctx": out[0].token_logprobs, "bare": out[1].token_logprobs, "sentences": spans,
           "context_sentences": sum(len(split(p, render=False)) for p in case.context)}
    if not whole_only:
        row |= {"sent_ctx": [r.token_logprobs for r in out[2:2 + n]], "sent_bare": [r.token_logprobs for r in out[2 + n:]]}
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="qwen2.5-coder-0.5b")
    parser.add_argument("--dataset", default="halubench")
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--exclude", nargs="*", default=[])
    parser.add_argument("--out", required=True)
    parser.add_argument("--whole-only", action="store_true", help="score the whole answer only (2 calls per case)")
    parser.add_argument("--balanced", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args()
    cases = select(load_file(DATA / f"{args.dataset}-dev.jsonl"), limit=args.limit, balanced=args.balanced, seed=args.seed,
                   exclude=excluded_case_ids(args.exclude))
    out = Path(args.out)
    done = {json.loads(line)["id"] for line in out.read_text().splitlines()} if out.exists() else set()
    backend = TransformersBackend(args.model)
    start = time.time()
    with out.open("a") as f:
        for i, case in enumerate(c for c in cases if c.id not in done):
            f.write(json.dumps(probe(backend, case, args.whole_only)) + "\n")
            f.flush()
            print(f"{i + 1}/{len(cases) - len(done)} {case.id} {time.time() - start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
