"""The labelling world of `courtroom label`'s tests (`tests.helpers.labels`)."""

from tests.helpers.labels import world  # noqa: F401 (a fixture)
