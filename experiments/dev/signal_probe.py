"""Where does a small model's probability carry signal? Scoring-only variants, AUROC on a dev sample."""

from __future__ import annotations

import re
import time
from typing import Literal

from probe_sample import probe_cases, probe_parser

from courtroom.casefile import render_case_file
from courtroom.door.requests import ChatMessage, GenerationRequest, Sampling
from courtroom.door.transformers import TransformersBackend
from courtroom.engine.plain import JUDGE_SYSTEM
from courtroom.evaluate.metrics import auroc
from courtroom.text.sentences import split

STOP = set("a an the of in on at to for from by with and or but is are was were be been being it its this that these "
           "those as which who whom what when where why how not no yes do does did has have had can could will would "
           "should may might must there their they them he she his her we our you your i me my than then so such also "
           "into about over after before between through during based given passage passages answer question".split())


def words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+(?:[.,][0-9]+)?", text.lower().replace(",", "")) if w not in STOP]


def unsupported(statement: str, context: str) -> list[str]:
    known = set(words(context))
    return [w for w in dict.fromkeys(words(statement)) if w not in known]


def main() -> None:
    parser = probe_parser(__doc__)
    args = parser.parse_args()
    cases = probe_cases(args)
    gold = [c.label == "FAIL" for c in cases]
    context = {c.id: " ".join(c.context) for c in cases}
    lexical = []
    for c in cases:
        ws = words(c.answer)
        lexical.append(len(unsupported(c.answer, context[c.id])) / max(len(set(ws)), 1))
    print("lexical unsupported-word share AUROC", round(auroc(gold, lexical), 3))
    print("answer length AUROC", round(auroc(gold, [len(c.answer.split()) for c in cases]), 3))
    backend = TransformersBackend(args.model)
    system = ChatMessage(role="system", content=JUDGE_SYSTEM)

    def ask(case, task, options):
        user = f"{render_case_file(case)}\n\n{task}"
        return GenerationRequest(messages=(system, ChatMessage(role="user", content=user)),
                                 output_type=Literal[options], sampling=Sampling(max_new_tokens=4), cache_group=case.id)

    variants = {
        "rails": lambda c: [ask(c, "Is the answer faithful to the context? Answer \"factual\" or \"hallucinated\".",
                                ("factual", "hallucinated"))],
        "sentence": lambda c: [ask(c, f"STATEMENT from the answer: \"{s}\"\nIs this statement supported by the context? "
                                      "Answer \"supported\" or \"hallucinated\".", ("supported", "hallucinated"))
                               for s in split(c.answer, render=False)],
        "sentence+exhibit": lambda c: [ask(c, f"STATEMENT from the answer: \"{s}\"\nWords of the statement that do not "
                                              f"appear in the context: {', '.join(unsupported(s, context[c.id])) or 'none'}.\n"
                                              "Is this statement supported by the context? Answer \"supported\" or "
                                              "\"hallucinated\".", ("supported", "hallucinated"))
                                       for s in split(c.answer, render=False)],
        "rails+exhibit": lambda c: [ask(c, f"Words of the answer that do not appear in the context: "
                                           f"{', '.join(unsupported(c.answer, context[c.id])) or 'none'}.\n"
                                           "Is the answer faithful to the context? Answer \"factual\" or \"hallucinated\".",
                                        ("factual", "hallucinated"))],
        "yesno-sentence": lambda c: [ask(c, f"STATEMENT from the answer: \"{s}\"\nDoes the context state this? Answer "
                                            "\"yes\" or \"no\".", ("yes", "no")) for s in split(c.answer, render=False)],
    }
    for name, build in variants.items():
        start = time.time()
        per_case = [build(c) for c in cases]
        flat = [r for rs in per_case for r in rs]
        responses = []
        for i in range(0, len(flat), 16):
            responses.extend(backend.generate(flat[i:i + 16]))
        for c in cases:
            backend.release(c.id)
        scores, k = [], 0
        for rs in per_case:
            ps = []
            for r in responses[k:k + len(rs)]:
                probs = r.option_probs
                ps.append(probs.get("hallucinated", probs.get("no", 0.0)))
            k += len(rs)
            scores.append(max(ps))
        mean = sum(scores) / len(scores)
        print(f"{name}: AUROC {auroc(gold, scores):.3f}, mean score {mean:.3f}, {time.time() - start:.0f}s", flush=True)


if __name__ == "__main__":
    main()
