"""The session inspector: a human page at a session's inspect_url showing the session as it
happens (state.py reads it, views.py serves the page, its JSON and the sealed artifact)."""
