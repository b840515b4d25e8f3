"""The second shop is a separate Django project with its own settings, run by Django's test
runner in a virtualenv holding only Django and the agents_protocol wheel (noxfile.py).
The Acme suite's pytest run (acme.settings) must not collect or import anything here."""
collect_ignore_glob = ["*"]
