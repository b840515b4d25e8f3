"""The site's own deploy check (`manage.py check --deploy`): contact messages must not go to the log."""
from django.conf import settings
from django.core.checks import Error, Tags, register

CONSOLE_EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"


@register(Tags.security, deploy=True)
def check_email_backend(app_configs, **kwargs):
    if settings.EMAIL_BACKEND != CONSOLE_EMAIL_BACKEND:
        return []
    return [Error(
        "EMAIL_BACKEND is the console backend (the default), which prints every contact message, with the "
        "sender's name, address and text, to the log.",
        hint="Set EMAIL_BACKEND in the environment to a backend that delivers mail, e.g. "
             "django.core.mail.backends.smtp.EmailBackend (docs/deploy.md).",
        id="acme.E001",
    )]
