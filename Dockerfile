# Production image: gunicorn (deploy/gunicorn.conf.py) as a non-root user, static files
# collected at build time and served by WhiteNoise, /healthz/live for the health check (a load
# balancer probes /healthz, which also checks the database and the cache).
# Configure it with the environment (docs/deploy.md, "Environment").
#   docker build -t acme-ceramics .
#   docker run -p 127.0.0.1:8000:8000 -e SECRET_KEY=… -e ALLOWED_HOSTS=shop.example -v acme-data:/data acme-ceramics
# (published to the host's proxy only: with TRUSTED_PROXY_COUNT set, a client reaching gunicorn
# directly could forge X-Forwarded-For)
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_ENV=production \
    DATA_DIR=/data \
    STATIC_ROOT=/app/staticfiles \
    HOST=0.0.0.0 \
    PORT=8000

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY . .
# The app's bytecode, compiled once here: its processes may not write it (PYTHONDONTWRITEBYTECODE, and
# /app is not the user's), so each would compile every module from source at start-up (about 0.15 s).
RUN python -m compileall -q .
# collectstatic reads the settings, which in production need a secret key: a throwaway one,
# and a throwaway DATA_DIR, so nothing secret or stateful stays in the image.
RUN SECRET_KEY="$(python -c 'import secrets; print(secrets.token_urlsafe(50))')" DATA_DIR=/tmp/build-data \
        python manage.py collectstatic --noinput -v0 \
    && rm -rf /tmp/build-data \
    && useradd --system --uid 1000 --no-create-home --home-dir /nonexistent acme \
    && mkdir -p /data && chown acme /data

USER acme
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD python -c "import os, urllib.request; urllib.request.urlopen(f'http://127.0.0.1:{os.environ[\"PORT\"]}/healthz/live', timeout=4)"

ENTRYPOINT ["/app/deploy/entrypoint.sh"]
# gunicorn and the background tasks' worker beside it (UCP order webhooks).
CMD ["deploy/serve.sh"]
