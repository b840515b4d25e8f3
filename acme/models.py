from django.db import models


class ContactMessage(models.Model):
    """A message sent through the `contact` capability (or any other channel of the shop)."""

    name = models.CharField(max_length=200)
    email = models.EmailField(max_length=320)
    message = models.TextField(max_length=5000)
    agent_session = models.ForeignKey(
        "agents_protocol.AgentSession", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    received = models.DateTimeField(auto_now_add=True)
    handled = models.BooleanField(default=False)

    class Meta:
        ordering = ["-received"]

    def __str__(self):
        return f"{self.name} <{self.email}>"


class WriteProbe(models.Model):
    """The health check's own table: /healthz writes a row here and rolls it back (acme/health.py),
    so a database this instance cannot write fails the check."""
