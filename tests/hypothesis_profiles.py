"""Hypothesis' profiles for the suite (a plugin: pytest.ini loads it with `-p tests.hypothesis_profiles`).

    ci        the default (make test, CI): each property test runs the first of its two counts
    thorough  HYPOTHESIS_PROFILE=thorough: the second, about three times as many, and
              test_interop_openapi's schemathesis adds its coverage phase

Both are derandomized (the same examples every run), keep no example database and have no
deadline (a shared CI machine has uneven timings).
"""
import os

from hypothesis import settings

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
THOROUGH = PROFILE == "thorough"

settings.register_profile("ci", deadline=None, derandomize=True, database=None)
settings.register_profile("thorough", settings.get_profile("ci"))
settings.load_profile(PROFILE)


def examples(ci, thorough):
    """The example count of a test under the loaded profile."""
    return thorough if THOROUGH else ci
