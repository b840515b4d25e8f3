"""docs/security.md names, for each threat, the tests that cover it: every one must exist."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = re.compile(r"(tests/[\w/]+\.py)(?:::(\w+))?|::(\w+)")


def test_every_test_the_threat_model_names_exists():
    text = (ROOT / "docs" / "security.md").read_text()
    named, missing, current = 0, [], None
    for match in REFERENCE.finditer(text):
        current = match.group(1) or current
        name = match.group(2) or match.group(3)
        source = ROOT / current
        if not source.exists() or (name and f"def {name}(" not in source.read_text()):
            missing.append(f"{current}::{name}")
        named += 1
    assert missing == []
    assert named >= 40
