"""Pure functions from a configuration snapshot to the documents agents read."""
