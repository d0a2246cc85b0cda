"""The error tree of `courtroom`: every error a user can act on names what was wrong and where."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class CourtroomError(Exception):
    """Base class of every error raised by `courtroom`."""


class ConfigError(CourtroomError):
    """A YAML file (persona, court) or a setting is malformed; the message names file and field."""


class PersonaError(ConfigError):
    """A persona file does not validate."""


class CourtError(ConfigError):
    """A court file or its debate graph does not validate."""


class DatasetError(CourtroomError):
    """A dataset file or row is malformed; the message names the file, the row and the field."""


class OutputTypeError(CourtroomError, TypeError):
    """An output type cannot become a constraint (a JSON schema or a set of string options)."""


class MetricArgumentError(CourtroomError, TypeError):
    """A metric-style call (`Court.score`) got no answer or context, a part under two names, or a name no tool
    uses; the message lists the names accepted."""


class ModelNotFoundError(CourtroomError):
    """A model name could not be resolved; the message lists everything that was tried."""


class BackendError(CourtroomError):
    """A model backend failed to produce a response."""


class ContextWindowError(BackendError):
    """A request does not fit the model's context window (its case fails with this, the run goes on)."""


class TruncatedGenerationError(BackendError):
    """A constrained generation hit its token limit before the output was complete."""


class OutputParseError(BackendError):
    """An unconstrained generation did not parse or validate as the requested output type."""


class ScriptExhaustedError(BackendError):
    """The scripted fake backend was asked for more outputs than it was given."""


class CaseFailedError(CourtroomError):
    """A case could not be judged; the message names the case and the cause."""


class RunError(CourtroomError):
    """A run directory cannot be started, resumed or read as asked; the message names the directory."""


class AuditError(RunError):
    """A run directory cannot be audited as asked."""


class ReplayMismatch(CourtroomError):
    """The judge asked for something the transcript did not record (edited, truncated, or another judge's)."""


class RecordedFailure(CourtroomError):
    """Raised again, on replay, in place of a model-door exception a transcript recorded (as a subclass that
    keeps the recorded type's name)."""


class TranscriptError(RunError):
    """A case's transcript is missing, empty or not a transcript (the message names the file and line)."""


def did_you_mean(name: str, choices: Iterable[str]) -> str:
    """`; did you mean 'x'?` naming the choice closest to a mistyped `name` (difflib), or nothing when none is
    close."""
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
