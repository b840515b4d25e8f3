"""The test run's data directory is its own (tests/isolation.py), not var/ of `make run`."""
from pathlib import Path

from django.conf import settings

from acme.embedded.cache_dir import default_cache_dir
from tests import isolation


def test_without_a_data_dir_given_the_run_uses_its_own_made_before_the_settings_were_read():
    if isolation.CREATED is None:  # DATA_DIR came from the environment: the caller's choice, used as it is
        assert isolation.os.environ["DATA_DIR"] == str(settings.DATA_DIR)
        return
    assert Path(settings.DATA_DIR) == Path(isolation.CREATED) != Path(settings.BASE_DIR) / "var"
    assert Path(settings.DATABASES["default"]["TEST"]["NAME"]).parent == Path(isolation.CREATED)
    assert Path(settings.CACHE_DIR) == default_cache_dir(isolation.CREATED)
