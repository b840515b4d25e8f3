"""Validation of generated documents against the canonical agents.json schema."""
import json
from functools import lru_cache
from pathlib import Path

SCHEMA_PATH = Path(__file__).parents[1] / "schemas" / "agents.schema.json"


@lru_cache(maxsize=1)
def agents_json_validator():
    from jsonschema import Draft7Validator, FormatChecker  # here, as in config_io.import_config()

    schema = json.loads(SCHEMA_PATH.read_text())
    return Draft7Validator(schema, format_checker=FormatChecker())


def agents_json_errors(document):
    """Readable errors, e.g. "capabilities.0.name: 'Search' does not match ...", or []."""
    errors = sorted(agents_json_validator().iter_errors(document), key=lambda e: list(e.absolute_path))
    return [f"{'.'.join(str(p) for p in e.absolute_path) or '(document)'}: {e.message}" for e in errors]
