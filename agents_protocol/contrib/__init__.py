"""Optional integrations with shop frameworks, each an extra of the wheel (e.g. `agents-protocol[oscar]`).

Nothing else in agents_protocol imports them.
"""
