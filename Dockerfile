# First version of the production image (the scale-out issue completes it:
# healthcheck endpoint, entrypoint checks, PostgreSQL and Redis settings).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8000 \
    WORKERS=2

WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt

COPY . .
RUN useradd --system --uid 1000 --home-dir /app acme \
    && mkdir -p /data && chown acme /data

USER acme
VOLUME ["/data"]
EXPOSE 8000

CMD ["sh", "-c", "python manage.py migrate --noinput && python manage.py collectstatic --noinput -v0 && exec gunicorn acme.wsgi --bind ${HOST}:${PORT} --workers ${WORKERS} --access-logfile -"]
