"""agents_protocol for django-oscar shops: a ready-made provider (`provider.OscarProvider`),
one Oscar basket per agent session, the checkout link into Oscar's own checkout and the
handoff resolved when Oscar places the order. Install with `pip install agents-protocol[oscar]`
and add "agents_protocol.contrib.oscar" to INSTALLED_APPS (docs/quickstart-oscar.md).
"""
