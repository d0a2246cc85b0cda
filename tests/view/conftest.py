"""The fixtures of `courtroom view`'s tests (`tests.helpers.view`): the runs made, a copy to change, a browser."""

from tests.helpers.view import browser, made, world  # noqa: F401 (fixtures)
