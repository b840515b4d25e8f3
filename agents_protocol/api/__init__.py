"""The agent interaction API: routing, auth, parameters, envelope, one DRF view."""
