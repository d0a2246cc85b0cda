"""A real headless Chromium for the tests that open the HTML report (marked `browser`)."""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest

PLACES = ("/usr/bin/chromium", "/usr/bin/chromium-browser")
"""Where Debian and Ubuntu install Chromium (else it is looked for on the PATH)."""


def chromium() -> tuple[Any, str]:
    """Playwright's sync API and Chromium's path; the test is skipped without them (and fails on CI, which has them)."""
    playwright = pytest.importorskip("playwright.sync_api")
    path = next((c for c in (*PLACES, shutil.which("chromium") or "") if c and os.path.exists(c)), None)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is not installed; .ci/run installs Debian's chromium package")
        pytest.skip("no Chromium on this machine")
    return playwright, path
