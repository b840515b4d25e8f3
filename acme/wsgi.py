"""WSGI entry point for gunicorn: `gunicorn acme.wsgi`.

The discovery documents are replayed from memory while the configuration is unchanged
(agents_protocol.wsgi.DocumentReplay); everything else is Django's.
"""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "acme.settings")

application = get_wsgi_application()

from agents_protocol.wsgi import DocumentReplay  # after Django set up: its modules need the apps loaded

application = DocumentReplay(application)
