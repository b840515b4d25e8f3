"""Keep the secrets of checkout links and session inspectors out of the logs.

A checkout link (`/checkout/<token>/`) is the only way to the human's review page, and an
inspect_url (`/.well-known/agents/inspect/<secret>`, polled every second) the only way to a
session's inspector; the database keeps only their SHA-256. Their paths would otherwise reach
three logs: gunicorn's access log (request line, referer), gunicorn's debug log, and Django's
warnings about refused requests ("Forbidden (CSRF cookie not set.): /checkout/…/", "Not Found:
…"). Session tokens travel in headers, which no log here writes.

`RedactSecrets` filters Django's log handler (settings.LOGGING); `GunicornLogger` is gunicorn's
`logger_class` (deploy/gunicorn.conf.py).

The access log is written for every request, so its cost counts: gunicorn's own `access()` makes
an atom of every request header, response header and environ variable and escapes each, whatever
the format prints (tens of microseconds per request). For gunicorn's default format
`GunicornLogger.access` fills in only the nine atoms it prints and hands the logger the finished
line, byte for byte the line the general path writes (tests/test_access_log.py), which it writes to
gunicorn's own handlers as their emit() would, without a LogRecord. Any other format
takes the general path, and so does a logging configuration of the operator's own (logconfig…),
whose formatters may read the atoms from `record.args`, which only the general path passes.
"""
import logging
import re
import time
import traceback

from gunicorn import glogging

SECRET_IN_PATH = re.compile(r"(/checkout/)[A-Za-z0-9_-]{20,}|(/\.well-known/agents/inspect/)[^/?#\s\"]+")
SECRET_MARKERS = ("/checkout/", "/.well-known/agents/inspect/")  # every SECRET_IN_PATH match holds one

GUNICORN_DEFAULT_ACCESS_FORMAT = '%(h)s %(l)s %(u)s %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s"'
ACCESS_LOG_TIME = "[%d/%b/%Y:%H:%M:%S %z]"  # glogging.Logger.now()'s format
DEFAULT_ACCESS_LINE = '%s %s %s %s "%s" %s %s "%s" "%s"'  # the same format, filled in by position


def redact(text):
    # The substring test costs tens of nanoseconds, the regex microseconds; most text holds no secret.
    if SECRET_MARKERS[0] not in text and SECRET_MARKERS[1] not in text:
        return text
    return SECRET_IN_PATH.sub(lambda found: f"{found[1] or found[2]}[redacted]", text)


def logged_atom(value):
    """An access-log atom as the general path writes it: redacted, then escaped as gunicorn's SafeAtoms does."""
    if isinstance(value, str):
        return redact(value).replace('"', '\\"')
    return value


class RedactSecrets(logging.Filter):
    def filter(self, record):
        message = record.getMessage()
        if SECRET_IN_PATH.search(message):
            record.msg, record.args = redact(message), ()
        return True


def plain_handlers(log):
    """`log`'s handlers if each writes a record's message alone to its stream, as gunicorn's own
    do (a StreamHandler or FileHandler, formatter "%(message)s", no filter, INFO let through), and
    nothing else sees its records; else None."""
    if log.propagate or log.filters or not log.handlers:
        return None
    for handler in log.handlers:
        if (type(handler) not in (logging.StreamHandler, logging.FileHandler) or handler.filters
                or handler.level > logging.INFO or type(handler.formatter) is not logging.Formatter
                or handler.formatter._fmt != "%(message)s"):
            return None
    return tuple(log.handlers)


class GunicornLogger(glogging.Logger):
    def __init__(self, cfg):
        super().__init__(cfg)
        self.error_log.addFilter(RedactSecrets())

    def setup(self, cfg):
        super().setup(cfg)  # gunicorn runs setup() again on a configuration reload
        own_logging_config = cfg.logconfig or cfg.logconfig_dict or cfg.logconfig_json
        self._writes_default_lines = cfg.access_log_format == GUNICORN_DEFAULT_ACCESS_FORMAT and not own_logging_config

    def atoms(self, resp, req, environ, request_time):
        atoms = super().atoms(resp, req, environ, request_time)
        return {name: redact(value) if isinstance(value, str) else value for name, value in atoms.items()}

    def access(self, resp, req, environ, request_time):
        if not self._writes_default_lines:
            super().access(resp, req, environ, request_time)
            return
        if not (self.access_log_enabled and self.access_log.isEnabledFor(logging.INFO)):
            return
        line = self.default_access_line(resp, environ)
        try:
            self.write_access_line(line)
        except Exception:  # as glogging.Logger.access: a failing handler must not fail the request
            self.error(traceback.format_exc())

    def write_access_line(self, line):
        """What Logger.info(line) writes. Through gunicorn's own handlers (each writes the message
        alone to its stream), written as their emit() writes it, without the LogRecord and the
        calls around it (a tenth of a replayed agents.txt's cost in the worker); through any
        other, as a record without its findCaller() (about 5 µs): these handlers print no caller."""
        handlers = plain_handlers(self.access_log)  # as the log is now: Django's LOGGING may change it after setup()
        if handlers is None or any(handler.stream is None for handler in handlers):
            record = self.access_log.makeRecord(self.access_log.name, logging.INFO, "", 0, line, (), None)
            self.access_log.handle(record)
            return
        for handler in handlers:  # each written on its own, as logging would, whatever another does
            try:
                handler.acquire()
                try:
                    handler.stream.write(line + handler.terminator)
                    handler.flush()
                finally:
                    handler.release()
            except Exception:  # as emit(): one handler failing does not keep the line from the others
                self.error(traceback.format_exc())

    _now = (None, "")  # (the Unix second, its access-log time)

    def now(self):
        """glogging.Logger.now(), formatted once a second."""
        second = int(time.time())
        if self._now[0] != second:
            self._now = (second, time.strftime(ACCESS_LOG_TIME, time.localtime(second)))
        return self._now[1]

    def default_access_line(self, resp, environ):
        """The default format's line, each atom computed as glogging.Logger.atoms() computes it."""
        status = resp.status
        if isinstance(status, str):
            status = status.split(None, 1)[0]
        sent = getattr(resp, "sent", None)
        request_line = f"{environ['REQUEST_METHOD']} {environ['RAW_URI']} {environ['SERVER_PROTOCOL']}"
        atoms = (
            environ.get("REMOTE_ADDR", "-"),
            "-",
            self._get_user(environ) or "-",
            self.now(),
            request_line,
            status,
            sent is not None and str(sent) or "-",
            environ.get("HTTP_REFERER", "-"),
            environ.get("HTTP_USER_AGENT", "-"),
        )
        return DEFAULT_ACCESS_LINE % tuple(map(logged_atom, atoms))
