"""Does the answer's likelihood given the context (vs without it) separate hallucinated answers?"""

from __future__ import annotations

import torch
from probe_sample import probe_cases, probe_parser

from courtroom.casefile import render_context
from courtroom.door.models import load_model
from courtroom.evaluate.metrics import auroc


def token_logprobs(lm, prompt: str, answer: str) -> torch.Tensor:
    tok = lm.tokenizer
    p = tok(prompt, add_special_tokens=False)["input_ids"]
    a = tok(answer, add_special_tokens=False)["input_ids"][:200]
    ids = torch.tensor([p + a])
    with torch.inference_mode():
        logits = lm.model(input_ids=ids).logits[0, len(p) - 1:-1].float()
    return torch.log_softmax(logits, -1)[torch.arange(len(a)), torch.tensor(a)]


def main() -> None:
    parser = probe_parser(__doc__)
    args = parser.parse_args()
    lm = load_model(args.model)
    cases = probe_cases(args)
    gold = [c.label == "FAIL" for c in cases]
    feats: dict[str, list[float]] = {k: [] for k in ("mean_ctx", "min_ctx", "p10_ctx", "mean_pmi", "min_pmi", "frac_low")}
    def chat(content: str) -> str:
        return lm.tokenizer.apply_chat_template([{"role": "user", "content": content}], tokenize=False,
                                                add_generation_prompt=True)

    for c in cases:
        with_ctx = token_logprobs(lm, chat(f"Context:\n{render_context(c)}\n\nQuestion: {c.question}\nAnswer from the context."), c.answer)
        without = token_logprobs(lm, chat(f"Question: {c.question}\nAnswer."), c.answer)
        pmi = with_ctx - without
        feats["mean_ctx"].append(-float(with_ctx.mean()))
        feats["min_ctx"].append(-float(with_ctx.min()))
        feats["p10_ctx"].append(-float(torch.quantile(with_ctx, 0.1)))
        feats["mean_pmi"].append(-float(pmi.mean()))
        feats["min_pmi"].append(-float(pmi.min()))
        feats["frac_low"].append(float((with_ctx < -4).float().mean()))
    for k, v in feats.items():
        print(f"{k}: AUROC {auroc(gold, v):.3f}", flush=True)


if __name__ == "__main__":
    main()
