"""Grounding scores through the model door: per-sentence PMI of the answer with the context."""

from __future__ import annotations

import statistics
import time
from typing import Literal

from probe_sample import probe_cases, probe_parser

from courtroom.casefile import render_context
from courtroom.door.requests import ChatMessage, GenerationRequest, Sampling
from courtroom.door.transformers import TransformersBackend
from courtroom.evaluate.metrics import auroc
from courtroom.text.sentences import split

SYSTEM = ChatMessage(role="system", content="Answer the question using the context.")


FORMAT = "A"
RULES = ("COURT RULES. This court decides whether an ANSWER is faithful to its CONTEXT. A statement of the answer is "
         "supported only if the context states it or it follows directly from the context.")


def request(case, sentence: str, with_context: bool) -> GenerationRequest:
    if FORMAT in ("A", "B"):
        from courtroom.casefile import render_numbered_context
        context = render_context(case) if FORMAT == "A" else render_numbered_context(case)
        user = (f"CONTEXT:\n{context}\n\n" if with_context else "") + f"QUESTION: {case.question}"
        messages = (SYSTEM, ChatMessage(role="user", content=user))
    else:  # D: court rules as system, numbered context then question in the user message
        from courtroom.casefile import render_numbered_context
        ctx = (f"CONTEXT (the only evidence), sentence by sentence:\n{render_numbered_context(case)}\n\n"
               if with_context else "")
        task = "Answer the question using the context." if with_context else "Answer the question."
        messages = (ChatMessage(role="system", content=RULES),
                    ChatMessage(role="user", content=f"{ctx}QUESTION: {case.question}\n\n{task}"))
    return GenerationRequest(messages=messages, output_type=Literal[(sentence,)], sampling=Sampling(max_new_tokens=256),
                             cache_group=case.id + ("" if with_context else "-bare"))


def main() -> None:
    parser = probe_parser(__doc__)
    parser.add_argument("--format", default="A")
    args = parser.parse_args()
    global FORMAT
    FORMAT = args.format
    cases = probe_cases(args)
    backend = TransformersBackend(args.model)
    start = time.time()
    per_case = []
    for case in cases:
        sentences = split(case.answer, render=False) or (case.answer,)
        reqs = [request(case, s, True) for s in sentences] + [request(case, s, False) for s in sentences]
        out = backend.generate(reqs)
        backend.release(case.id)
        backend.release(case.id + "-bare")
        n = len(sentences)
        pmis = []
        for s, a, b in zip(sentences, out[:n], out[n:]):
            lp_ctx, lp_bare = a.option_logprobs[s], b.option_logprobs[s]
            pmis.append((lp_ctx - lp_bare) / max(a.completion_tokens, 1))
        whole_ctx = sum(a.option_logprobs[s] for s, a in zip(sentences, out[:n]))
        whole_bare = sum(b.option_logprobs[s] for s, b in zip(sentences, out[n:]))
        tokens = sum(a.completion_tokens for a in out[:n])
        per_case.append((case, pmis, (whole_ctx - whole_bare) / tokens))
    gold = [c.label == "FAIL" for c, _, _ in per_case]
    print(f"{args.dataset}: {len(cases)} cases in {time.time() - start:.0f}s")
    for name, f in [("min sentence PMI", lambda p, w: -min(p)), ("mean sentence PMI", lambda p, w: -sum(p) / len(p)),
                    ("answer PMI (token mean)", lambda p, w: -w)]:
        print(f"  {name}: AUROC {auroc(gold, [f(p, w) for _, p, w in per_case]):.3f}")
    for label in ("PASS", "FAIL"):
        vals = [w for c, _, w in per_case if c.label == label]
        mins = [min(p) for c, p, _ in per_case if c.label == label]
        print(f"  {label}: answer PMI median {statistics.median(vals):.2f} (quartiles {statistics.quantiles(vals, n=4)}), "
              f"min sentence PMI median {statistics.median(mins):.2f}")


if __name__ == "__main__":
    main()
