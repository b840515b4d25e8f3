#!/usr/bin/env python
"""The second shop's manage.py. Run it from a virtualenv where agents_protocol is installed
from its wheel (noxfile.py does that), not from the repository's checkout."""
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
