"""gunicorn settings for production: `gunicorn --config deploy/gunicorn.conf.py acme.wsgi`.

The Docker image runs exactly this. Every value comes from the environment (docs/deploy.md,
"Environment"), which also says how to size it.
"""
import os

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WORKERS", "2"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))  # seconds before a stuck worker is replaced
graceful_timeout = timeout
keepalive = 5  # seconds; keep it below the load balancer's idle timeout
accesslog = "-"
errorlog = "-"
logger_class = "acme.log_redaction.GunicornLogger"  # checkout links' tokens never reach a log
# gunicorn's own refusals (past its limits below, or not HTTP/1.1) in the envelope, not HTML pages.
# GUNICORN_SPEEDUPS=1 opts in to the site's tuning of gunicorn itself: the same worker, with the
# Date header formatted once a second and the forwarding check remembered per client address
# (acme/gunicorn_speedups.py; docs/deploy.md).
if os.environ.get("GUNICORN_SPEEDUPS") == "1":
    worker_class = "acme.gunicorn_speedups.SyncWorker"
else:
    worker_class = "agents_protocol.contrib.gunicorn.workers.SyncWorker"
# One gunicorn per container or instance: no control socket to share or clean up.
control_socket_disable = True

# Request-line and header limits, above the app's own (AGENTS_PROTOCOL's MAX_URL_BYTES, 4096,
# and MAX_HEADER_BYTES, 8192; docs/api.md, "Request size"). Past its limits gunicorn answers
# itself, before Django runs: with its defaults (a 4094-byte request line) a 5,000-character
# search got gunicorn's answer, not the app's. The worker class above writes that answer in the
# envelope too, but only the app knows its own limits and says them in its sentence (414
# uri_too_long, 431 headers_too_large), so every request within the app's limits must reach it,
# and requests up to about twice past them do; only beyond these gunicorn answers (deploy.md).
# tests/test_api_request_size.py holds both sides to it.
limit_request_line = 8190  # "METHOD /path?query HTTP/1.1", bytes: gunicorn's maximum (0 = no limit at all)
limit_request_field_size = 16384  # one header field, bytes: twice MAX_HEADER_BYTES (gunicorn's default 8190)
limit_request_fields = 256  # header fields (default 100); gunicorn buffers at most fields × size, about 4 MB
