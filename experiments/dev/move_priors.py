"""The move priors of a court run, as the `move_priors` section of a court file (#21: calibrated choices).

    PYTHONPATH=. python experiments/dev/move_priors.py RUN_DIR [--model NAME] [--digits 4]

For each node of the run's court, the mean raw probability of each move over every turn that chose among moves
(`courtroom.court.move_priors.move_priors`), normalised per node, with the number of turns behind it. Paste the
snippet into a court file (or use it with `--set move_priors=...`); with `--model` it goes under `by_model`, since
priors belong to the court and the model together. Estimate priors on dev cases outside the evaluation samples.
"""

from __future__ import annotations

import argparse

from courtroom.court.move_priors import move_priors, priors_yaml, turns
from courtroom.log.audit import Audit


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", help="a finished courtroom run directory")
    parser.add_argument("--model", help="put the priors under move_priors.by_model.MODEL")
    parser.add_argument("--digits", type=int, default=4, help="decimals of each prior")
    args = parser.parse_args(argv)
    audit = Audit(args.run)
    priors = move_priors(audit, digits=args.digits)
    if not priors:
        raise SystemExit(f"{args.run}: no move was chosen by the model in this run (no transcripts, or only forced moves)")
    counted = turns(audit)
    text = f"# move priors of {args.run} ({audit.store.manifest().model}): " + ", ".join(
        f"{node} over {counted[node]} turns" for node in priors) + "\n" + priors_yaml(priors, args.model)
    print(text, end="")
    return text


if __name__ == "__main__":
    main()
