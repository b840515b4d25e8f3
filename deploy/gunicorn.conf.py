"""gunicorn settings for production: `gunicorn --config deploy/gunicorn.conf.py acme.wsgi`.

The Docker image runs exactly this. Every value comes from the environment (README,
"Environment"); see docs/deploy.md for sizing.
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
# One gunicorn per container or instance: no control socket to share or clean up.
control_socket_disable = True
