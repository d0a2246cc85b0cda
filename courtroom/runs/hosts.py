"""The hosts a run calls, and the user's consent to each. A court file is untrusted input (docs/SECURITY.md):
a seat of its `trial.models` may name a served model's URL and the environment variable of its key, so a court
file could send the cases, and any variable's value, to any host. A run calls only the hosts the user named on
the command line (`--model-url`, and `--allow-host` for a seat's), and sends a key only to the host it was
named for."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from courtroom.door.http_client import origin
from courtroom.door.spec import BackendSpec, HostGrant
from courtroom.errors import ConfigError


@dataclass(frozen=True)
class Callee:
    """A host a run will call: which model for whom, and the variable whose value goes to it as the key."""

    origin: str
    model: str
    key_env: str | None
    who: str

    def __str__(self) -> str:
        key = f"with the key in ${self.key_env}" if self.key_env else "with no key"
        return f"{self.origin} ({self.who}: model {self.model}, {key})"


def callees(run: BackendSpec, seats: Mapping[str, BackendSpec]) -> list[Callee]:
    """Every host the run calls, its own model's first."""
    found = [Callee(origin(run.url), run.model, run.api_key_env, "the run's model")] if run.url else []
    return found + [Callee(origin(spec.url), spec.model, spec.api_key_env, f"seat {key}")
                    for key, spec in seats.items() if spec.url]


def consented(run: BackendSpec, seats: Mapping[str, BackendSpec],
              grants: Sequence[HostGrant]) -> list[Callee]:
    """The hosts the run calls, each checked against the user's word: a seat's host is `--model-url`'s or
    granted, and its key is `--api-key-env`'s at `--model-url`'s host or the variable granted for its host;
    else a `ConfigError` saying what to add, before any request."""
    mine = origin(run.url) if run.url else None
    granted = {grant.origin: grant for grant in grants}
    found = callees(run, seats)
    for callee in found[1 if mine else 0:]:
        grant = granted.get(callee.origin)
        if callee.origin != mine and grant is None:
            raise ConfigError(f"the court seats {callee.who} on {callee.origin}, a host you did not name: "
                              "its requests would carry your cases; to consent, add --allow-host "
                              f"{callee.origin}"
                              + (f"={callee.key_env}" if callee.key_env else ""))
        if callee.key_env and not (callee.origin == mine and callee.key_env == run.api_key_env) and \
                (grant is None or grant.key_env != callee.key_env):
            raise ConfigError(f"the court sends the value of ${callee.key_env} to {callee.origin} as the key "
                              f"of {callee.who}, which you did not consent to; to consent, add --allow-host "
                              f"{callee.origin}={callee.key_env}")
    return found
