#!/usr/bin/env python
"""Kiln & Co's manage.py. Run it from a virtualenv where agents_protocol is installed from its
wheel with the [oscar] extra (noxfile.py, the package-oscar-* sessions), not from the checkout."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kiln_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
