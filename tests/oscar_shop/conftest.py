"""The Oscar shop is a separate Django project with its own settings, run by Django's test
runner in a virtualenv holding only the agents_protocol wheel with its [oscar] extra and the
shop's own requirements (noxfile.py, the package-oscar-* sessions). The Acme suite's pytest run
(acme.settings) must not collect or import anything here."""
collect_ignore_glob = ["*"]
