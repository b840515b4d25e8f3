"""The documented offline verification really works, and really refuses a forged artifact."""
import json
import subprocess
from pathlib import Path

import pytest

from agents_protocol.audit import verify

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "audit-example"
SCRIPT = EXAMPLE / "verify-with-openssl.sh"


def run_script(artifact_path):
    return subprocess.run([str(SCRIPT), str(artifact_path), str(EXAMPLE / "public_key.txt")],
                          capture_output=True, text=True, timeout=60)


def test_the_documented_example_verifies_with_python_and_openssl():
    artifact = json.loads((EXAMPLE / "artifact.json").read_text())
    assert verify(artifact, (EXAMPLE / "public_key.txt").read_text().strip()).ok
    result = run_script(EXAMPLE / "artifact.json")
    assert result.returncode == 0, result.stderr
    assert "Signature Verified Successfully" in result.stdout


def test_the_script_takes_the_audit_endpoints_answer_in_its_envelope_too(tmp_path):
    enveloped = tmp_path / "audit_response.json"
    enveloped.write_text(json.dumps({"ok": True, "data": json.loads((EXAMPLE / "artifact.json").read_text())}))
    result = run_script(enveloped)
    assert result.returncode == 0, result.stderr
    assert "Signature Verified Successfully" in result.stdout


FORGERIES = {
    "edited param": lambda a: a["events"][2]["params"].update(quantity=3),
    "removed event": lambda a: a["events"].pop(3),
    "forged root hash": lambda a: a.update(root_hash="0" * 64),
    "forged signature": lambda a: a.update(signature=a["signature"][::-1]),
}


@pytest.mark.parametrize("forge", FORGERIES.values(), ids=FORGERIES.keys())
def test_the_openssl_procedure_refuses_forgeries(tmp_path, forge):
    artifact = json.loads((EXAMPLE / "artifact.json").read_text())
    forge(artifact)
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(artifact))
    assert run_script(forged).returncode != 0
