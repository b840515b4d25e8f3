"""WSGI entry point for gunicorn: `gunicorn acme.wsgi`.

The discovery documents are replayed from memory while the configuration is unchanged
(agents_protocol.wsgi.DocumentReplay); everything else is Django's.
"""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "acme.settings")

application = get_wsgi_application()

# Imported once Django is set up: the app's modules need its apps loaded.
from agents_protocol.wsgi import DocumentReplay

application = DocumentReplay(application)
