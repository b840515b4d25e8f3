"""The app's pages stay true: the quickstarts' and integration.md's copies of the two shops' files,
their settings, checks, error codes and install commands."""
import re
import tomllib
from pathlib import Path

import django.db
import pytest
from django.core.management import CommandError

from agents_protocol.contrib.oscar.conf import oscar_settings
from agents_protocol.http.exceptions import refusal_for
from agents_protocol.management.commands.agents_config import Command as AgentsConfigCommand

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
INDEX = (DOCS / "index.md").read_text()
QUICKSTART = (DOCS / "quickstart-django.md").read_text()
OSCAR_QUICKSTART = (DOCS / "quickstart-oscar.md").read_text()
GUIDE = (DOCS / "integration.md").read_text()
PAGES = {"index.md": INDEX, "quickstart-django.md": QUICKSTART, "quickstart-oscar.md": OSCAR_QUICKSTART,
         "integration.md": GUIDE}
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def copies(text):
    return re.findall(r"<!-- file: (\S+) -->\n```python\n(.*?)```\n", text, flags=re.DOTALL)


COPIES = [copy for text in PAGES.values() for copy in copies(text)]


def section(text, title):
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else None]


def test_the_pages_copy_four_files_of_the_second_shop_and_two_of_the_oscar_shop():
    assert {name: [path for path, _ in copies(text)] for name, text in PAGES.items()} == {
        "index.md": [],
        "quickstart-django.md": ["tests/second_shop/shop_site/urls.py", "tests/second_shop/store/agents.py"],
        "quickstart-oscar.md": ["tests/oscar_shop/kiln_site/urls.py", "tests/oscar_shop/kiln_apps/partner/strategy.py"],
        "integration.md": [
            "tests/second_shop/store/capabilities.py",
            "tests/second_shop/store/migrations/0002_availability_capability.py",
            "tests/second_shop/store/tests/test_guide_example.py",
        ],
    }


@pytest.mark.parametrize("path,text", COPIES, ids=[path for path, _ in COPIES])
def test_each_copy_is_exactly_the_tested_file(path, text):
    assert text == (ROOT / path).read_text()


def test_the_quickstart_takes_six_steps_from_install_to_an_agents_purchase():
    steps = re.findall(r"^## (\d)\. (.+)$", QUICKSTART, flags=re.MULTILINE)
    assert [number for number, _ in steps] == ["1", "2", "3", "4", "5", "6"]
    assert [title for _, title in steps] == [
        "Install", "Settings", "URLs", "The provider", "Migrate and check", "An agent buys",
    ]


def test_the_checks_table_lists_every_check_the_app_defines():
    source = "".join((ROOT / "agents_protocol" / path).read_text() for path in ("checks.py", "core/conf.py"))
    defined = set(re.findall(r'(?:id|check) ?= ?"(agents_protocol\.[EW]\d{3})"', source))
    documented = re.findall(r"^\| `(agents_protocol\.[EW]\d{3})` \|", section(GUIDE, "System checks"),
                            flags=re.MULTILINE)
    assert len(defined) == 20
    assert sorted(documented) == sorted(defined)


def test_the_readme_links_the_quickstarts():
    readme = (ROOT / "README.md").read_text()
    assert "[docs/quickstart-django.md](docs/quickstart-django.md)" in readme
    assert "[docs/quickstart-oscar.md](docs/quickstart-oscar.md)" in readme


def test_the_oscar_quickstart_documents_every_setting_and_check_of_the_oscar_integration():
    oscar_path = OSCAR_QUICKSTART
    documented = re.findall(r"^\| `([A-Z_]+)` \|", oscar_path, flags=re.MULTILINE)
    assert documented == list(oscar_settings.defaults())
    for key, default in oscar_settings.defaults().items():
        assert f"| `{key}` | `{default!r}`".replace("'", '"') in oscar_path
    source = (ROOT / "agents_protocol" / "contrib" / "oscar" / "conf.py").read_text()
    defined = set(re.findall(r'check = "(agents_protocol_oscar\.[EW]\d{3})"', source))
    assert defined == {"agents_protocol_oscar.E001", "agents_protocol_oscar.E002"}
    assert defined == set(re.findall(r"`(agents_protocol_oscar\.[EW]\d{3})`", oscar_path))


def error_table(text, heading):
    """{code: status} of the first table after `heading` whose rows start with a status and a `code`."""
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    rows = re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", text[start:end if end != -1 else None], flags=re.MULTILINE)
    return {code: int(status) for status, code in rows}


def test_the_provider_error_codes_are_the_apis_with_the_same_status():
    provider_codes = error_table(GUIDE, "\n## Error codes a provider raises\n")
    api_codes = error_table((ROOT / "docs" / "api.md").read_text(), "\n## Error codes\n")
    assert len(provider_codes) >= 10
    assert {code: api_codes.get(code) for code in provider_codes} == provider_codes


def test_the_apps_page_names_every_dependency_of_the_wheel():
    dependencies = PYPROJECT["project"]["dependencies"]
    install = section(INDEX, "Install")
    for requirement in dependencies:
        name = re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0]
        assert name.lower() in install.lower(), name


def test_the_app_is_installed_from_its_built_wheel_never_from_pypi():
    wheel = f"dist/agents_protocol-{PYPROJECT['project']['version']}-py3-none-any.whl"
    targets = [target for text in PAGES.values() for target in re.findall(r"pip install \"?([^\s\"`]+)", text)]
    of_the_app = [target for target in targets if "agents" in target]
    assert len(of_the_app) >= 3
    assert [target for target in of_the_app if not target.startswith(wheel)] == []


@pytest.mark.parametrize("page,settings_path", [
    (QUICKSTART, "tests/second_shop/shop_site/settings.py"),
    (OSCAR_QUICKSTART, "tests/oscar_shop/kiln_site/settings.py"),
], ids=["django", "oscar"])
def test_each_quickstart_gives_the_rate_limit_cache_its_shop_counts_in_and_silences_no_check(page, settings_path):
    [snippet] = re.findall(r"^(CACHES = \{\n.*?\nRATELIMIT_USE_CACHE = \"ratelimit\"\n)", page,
                           re.DOTALL | re.MULTILINE)
    assert "diskcache.DjangoCache" in snippet
    shop_settings = (ROOT / settings_path).read_text()
    assert snippet in shop_settings
    assert "SILENCED_SYSTEM_CHECKS" not in page and "SILENCED_SYSTEM_CHECKS" not in shop_settings


def test_every_agents_config_command_in_the_guide_is_one_the_command_takes():
    commands = re.findall(r"manage\.py\s+agents_config\s+([^`]+)`", GUIDE)
    parser = AgentsConfigCommand().create_parser("manage.py", "agents_config")
    assert len(commands) >= 2
    for arguments in commands:
        try:
            parser.parse_args(arguments.split())
        except CommandError as error:
            pytest.fail(f"agents_config {arguments}: {error}")


def test_the_database_errors_the_guide_says_are_503_and_500_are():
    sentence = re.search(r"A lost, locked or unreadable database.*?no traceback\.",
                         section(GUIDE, "Error codes a provider raises"), flags=re.DOTALL).group(0)
    said_503, said_500 = sentence.split("is answered 503")
    said = {name: status for text, status in ((said_503, 503), (said_500, 500))
            for name in re.findall(r"`(\w+Error)`", text) if hasattr(django.db, name)}
    assert len(said) == 5
    assert {name: refusal_for(getattr(django.db, name)()).status for name in said} == said
