"""The adapters of `courtroom.integrations` inside their host tools' own evaluate calls: Opik, DeepEval, Ragas.

Each host lives in its own environment (`make integrations` builds `.venv-opik`, `.venv-deepeval`, `.venv-ragas`;
their pins conflict), and `make test` runs each host's tests in its environment with `COURTROOM_HOST` naming it: a
host that is then missing fails the run instead of skipping. Elsewhere (the main environment, which has none of
the hosts) a host's test module is not collected at all, so `make test`'s main run shows no skips for them.

The court is the real default court on the scripted backend (`CourtScript`): the answer's statement with the
invented year is measured as ungrounded and the defence concedes it; everything else is well grounded. No test
reaches the network: the hosts' telemetry is switched off before they are imported, and every socket connection
is refused while a test runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import socket

import pytest

from courtroom.court import Court
from tests.helpers.hosts import scripted_court

OFFLINE = {
    "OPIK_TRACK_DISABLE": "true", "OPIK_ANALYTICS_ENABLE": "false", "OPIK_SENTRY_ENABLE": "false",
    "OPIK_URL_OVERRIDE": "http://127.0.0.1:9/api",  # nothing listens there: a call that slipped through fails fast
    "DEEPEVAL_TELEMETRY_OPT_OUT": "YES", "DEEPEVAL_UPDATE_WARNING_OPT_OUT": "YES", "DEEPEVAL_GRPC_LOGGING": "NO",
    "ERROR_REPORTING": "NO", "CONFIDENT_TRACE_FLUSH": "NO", "CONFIDENT_METRIC_LOGGING_FLUSH": "NO",
    "RAGAS_DO_NOT_TRACK": "true", "DO_NOT_TRACK": "1",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # opik and deepeval import litellm, which otherwise fetches a price list
}
os.environ.update(OFFLINE)

HOSTS = ("opik", "deepeval", "ragas")
collect_ignore = [f"test_{name}.py" for name in HOSTS
                  if importlib.util.find_spec(name) is None and os.environ.get("COURTROOM_HOST") != name]


@pytest.fixture
def court() -> Court:
    return scripted_court()


@pytest.fixture(autouse=True)
def offline(monkeypatch: pytest.MonkeyPatch) -> None:
    """No network while a test runs: every name lookup and outgoing socket connection is refused (local
    socketpairs, which event loops use to wake themselves, are not connections and still work)."""
    def refuse(*args: object) -> None:
        raise ConnectionRefusedError(f"test reached for the network: {args[1:] or args}")
    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
