"""Write docs/settings.md from the settings' declarations: `python scripts/settings_reference.py`.

The declarations are agents_protocol/core/conf.py and agents_protocol/contrib/oscar/conf.py;
tests/test_settings_reference.py fails when the page and they differ.
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agents_protocol.contrib.oscar.conf import OscarSettings  # noqa: E402
from agents_protocol.core.conf import AgentsProtocolSettings  # noqa: E402

PAGE = ROOT / "docs" / "settings.md"

INTRO = """# Settings reference

<!-- Written by scripts/settings_reference.py from agents_protocol/core/conf.py and
agents_protocol/contrib/oscar/conf.py: edit those, then run it. -->

The app reads one dict from the project's settings, `AGENTS_PROTOCOL`, and its Oscar
integration a second, `AGENTS_PROTOCOL_OSCAR`; a key left out takes its default. The second shop of this repository (tests/second_shop/shop_site/settings.py)
sets three:

```python
AGENTS_PROTOCOL = {
    "PROVIDER": "store.agents.StoreProvider",
    "SIGNING_KEY_FILE": DATA_DIR / "audit_signing_key",
    "DEFAULT_SITE": {
        "name": "Northwind Goods",
        "description": "Kitchen tools and pantry goods",
        "contact": STORE_CONTACT_EMAIL,
    },
}
```

A value read from the environment is a string: wrap a number in `int()`, or `manage.py check`
says which key is not of its type.
"""


def reference_markdown():
    return "\n".join([INTRO, AgentsProtocolSettings.reference_markdown(), OscarSettings.reference_markdown()])


if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "acme.settings")
    import django

    django.setup()
    PAGE.write_text(reference_markdown())
