"""Helpers for the tests of a shop that installs agents_protocol."""
from . import config, publishing
from .config_io import import_config
from .defaults import default_config


def reset_config_cache():
    """Forget cached snapshots and documents (revision numbers restart when a test flushes the DB)."""
    config._cached["config"] = None
    publishing._rendered.cache_clear()


def install_default_config():
    """Write the default configuration, e.g. after a transactional test flushed the tables."""
    import_config(default_config())
    reset_config_cache()
