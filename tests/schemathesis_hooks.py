"""schemathesis' hooks for tests/test_interop_openapi.py (SCHEMATHESIS_HOOKS).

A client sends a fresh Idempotency-Key with each new request, as the key's rules ask.
schemathesis draws the same few valid keys for requests of different bodies, which the site
rightly refuses (422 idempotency_conflict, a rule no schema can state), so each key it draws
that fits the published pattern is made unique; keys outside it (its negative cases) are sent
as drawn.
"""
import re
import uuid

import schemathesis

UNIQUE_SUFFIX = 37  # "-" and a UUID


@schemathesis.hook
def map_headers(ctx, headers):
    key = (headers or {}).get("Idempotency-Key")
    parameter = ctx.operation.get_parameter("Idempotency-Key", "header") if ctx.operation else None
    if not isinstance(key, str) or parameter is None:
        return headers
    pattern = parameter.definition["schema"]["pattern"]
    unique = f"{key[:255 - UNIQUE_SUFFIX]}-{uuid.uuid4()}"
    if re.search(pattern, key) and re.search(pattern, unique):
        headers["Idempotency-Key"] = unique
    return headers
