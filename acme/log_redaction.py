"""Keep the secrets of checkout links and session inspectors out of the logs.

A checkout link (`/checkout/<token>/`) is the only way to the human's review page, and an
inspect_url (`/.well-known/agents/inspect/<secret>`, polled every second) the only way to a
session's inspector; the database keeps only their SHA-256. Their paths would otherwise reach
three logs: gunicorn's access log (request line, referer), gunicorn's debug log, and Django's
warnings about refused requests ("Forbidden (CSRF cookie not set.): /checkout/…/", "Not Found:
…"). Session tokens travel in headers, which no log here writes.

`RedactSecrets` filters Django's log handler (settings.LOGGING); `GunicornLogger` is gunicorn's
`logger_class` (deploy/gunicorn.conf.py).
"""
import logging
import re

from gunicorn import glogging

SECRET_IN_PATH = re.compile(r"(/checkout/)[A-Za-z0-9_-]{20,}|(/\.well-known/agents/inspect/)[^/?#\s\"]+")


def redact(text):
    return SECRET_IN_PATH.sub(lambda found: f"{found[1] or found[2]}[redacted]", text)


class RedactSecrets(logging.Filter):
    def filter(self, record):
        message = record.getMessage()
        if SECRET_IN_PATH.search(message):
            record.msg, record.args = redact(message), ()
        return True


class GunicornLogger(glogging.Logger):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.error_log.addFilter(RedactSecrets())

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {name: redact(value) if isinstance(value, str) else value for name, value in atoms.items()}
