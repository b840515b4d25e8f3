"""The docs site builds with `mkdocs build --strict`, and every name its pages mention exists.

A page names things in code spans: files, modules and classes, `manage.py` commands, settings,
error codes, transports. Each kind is taken from the pages with its own pattern and looked up
where it lives: files in the tree, dotted names in the modules they name, commands among Django's,
settings and identifiers in the source, error codes among the string literals of the code that
answers agents. A page that names something renamed or removed fails here.
"""
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

from django.conf import global_settings
from django.core.management import get_commands
from oscar import defaults as oscar_settings

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md", ROOT / "CHANGELOG.md"]

SPAN = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
PATH = re.compile(r"^[\w.-]+(/[\w.-]+)*/?$")
FILE_SUFFIXES = (".py", ".md", ".sh", ".conf", ".json", ".toml", ".txt", ".html", ".js", ".css", ".lua", ".yml")
NOT_FILES = {"agents.json", "agents.txt", "llms.txt", "pactspec.json", "agent-card.json", "openapi.json",
             "tests.json", ".mcp.json", "agents-config.json",  # documents the site serves or a reader writes
             "metadata.json",  # the ACP product feed's, which acp_feed_export writes
             "tools/list", "tools/call"}  # MCP methods
TREE_ROOTS = ("agents_protocol", "acme", "catalog", "cart", "tests", "deploy", "bench", "scripts", "tools",
              "templates", "docs", "static")
DOTTED = re.compile(r"^(agents_protocol|acme|catalog|cart)(\.\w+)+$")
CHECK_ID = re.compile(r"\b(agents_protocol(?:_oscar)?\.[EW]\d{3})\b")
COMMAND = re.compile(r"manage\.py\s+([a-z_]+)")
UPPER = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$")
SNAKE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
ERROR_CODE = re.compile(r"^\| [1-5]\d\d \| `([a-z][a-z0-9_]+)` \||^\| `([a-z][a-z0-9_]+)` \| [1-5]\d\d \|"
                        r"|\b[1-5]\d\d `([a-z][a-z0-9_]+)`", re.MULTILINE)
SETTING_KEY = re.compile(r'AGENTS_PROTOCOL(?:_OSCAR)?\["([A-Z_]+)"\]')
TRANSPORT = re.compile(r"transports/(\w+)\.py")
CODE_DIRS = ("agents_protocol", "acme", "catalog", "cart")
SETTINGS_DECLARATIONS = ("agents_protocol/core/conf.py", "agents_protocol/contrib/oscar/conf.py")
EXTERNAL = {"max_connections"}  # PostgreSQL's, which no file here names


def text_of(page):
    return page.read_text()


def spans(text):
    """Code spans outside fenced blocks."""
    return SPAN.findall(FENCE.sub("", text))


@cache
def tree():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    return {path for path in listed if (ROOT / path).exists()}


@cache
def source_words(*roots):
    words = set()
    for path in tree():
        if path.startswith(roots) and not path.startswith(("docs/", "tests/test_docs_names.py")) and path.endswith(
                (".py", ".sh", ".conf", ".html", ".js", ".toml", ".txt", ".lua", "Dockerfile", "Makefile")):
            words |= set(re.findall(r"\w+", (ROOT / path).read_text(errors="ignore")))
    return words


def missing_files(text):
    missing = []
    for span in spans(text):
        name = span.split("::")[0]
        if not PATH.match(name) or name in NOT_FILES or name.startswith(("http", "www")):
            continue
        rooted = name.split("/")[0] in TREE_ROOTS and "/" in name
        if not (rooted or name.endswith(FILE_SUFFIXES)):
            continue
        if rooted:
            found = (ROOT / name).exists()
        else:  # relative to a package (`http/pipeline.py`) or a bare file name (`write_lock.py`)
            found = any(path == name or path.endswith("/" + name) for path in tree())
        if not found:
            missing.append(span)
    return missing


def defined(dotted):
    """Whether `package.module.Name…` names a module of the tree and, after it, what that module
    defines (a class, function or assignment) or imports. Read, not imported: importing contrib.oscar
    needs Oscar's apps installed."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:split])
        module = base.with_suffix(".py") if base.with_suffix(".py").exists() else base / "__init__.py"
        if module.exists():
            source = module.read_text()
            star = re.search(r"^from ([\w.]+) import \*", source, re.M)  # models.py re-exports core's
            if star:
                return defined(".".join([star.group(1), *parts[split:]]))
            return all(re.search(rf"(class|def)\s+{name}\b|^\s*{name}\s*[:=]|import[^\n]*\b{name}\b", source, re.M)
                       for name in parts[split:])
    return False


@cache
def capability_names():
    return set(re.findall(r'"([a-z]+\.[a-z_]+)"', (ROOT / "agents_protocol" / "core" / "defaults.py").read_text()))


def missing_dotted_names(text):
    """Dotted names of the code, or of the built-in capabilities (`cart.add`)."""
    return [span for span in spans(text) if DOTTED.match(span) and not CHECK_ID.match(span)
            and not defined(span) and span not in capability_names()]


def missing_checks(text):
    """Check ids (`agents_protocol.W003`) that no module of the app names in a string."""
    sources = ((ROOT / path).read_text() for path in tree()
               if path.startswith("agents_protocol/") and path.endswith(".py"))
    defined = {check for source in sources for check in re.findall(r"[\"']" + CHECK_ID.pattern + r"[\"']", source)}
    return sorted(set(CHECK_ID.findall(text)) - defined)


def missing_commands(text):
    return [name for name in COMMAND.findall(text) if name not in {*get_commands(), "help"}]


@cache
def string_literals():
    """Every quoted string of the code that answers agents: the app and the shop."""
    texts = ((ROOT / path).read_text() for path in tree() if path.startswith(CODE_DIRS) and path.endswith(".py"))
    return {literal for text in texts for literal in re.findall(r"[\"']([a-z][a-z0-9_]+)[\"']", text)}


def missing_error_codes(text):
    codes = {"".join(groups) for groups in ERROR_CODE.findall(text)}
    return sorted(codes - string_literals())


def missing_setting_keys(text):
    declared = set().union(*(re.findall(r"\w+", (ROOT / path).read_text()) for path in SETTINGS_DECLARATIONS))
    return [key for key in SETTING_KEY.findall(text) if key not in declared]


def missing_identifiers(text):
    """UPPER_CASE settings and variables, snake_case names: each is a word of the project's files, or a
    setting of Django or Oscar."""
    known = source_words(*TREE_ROOTS, "Dockerfile", "pyproject.toml", "requirements", "noxfile.py", "Makefile")
    names = {span for span in spans(text) if UPPER.match(span) or SNAKE.match(span)}
    return sorted(name for name in names
                  if name not in known | EXTERNAL
                  and not hasattr(global_settings, name) and not hasattr(oscar_settings, name))


def missing_transports(text):
    transports = ROOT / "agents_protocol" / "transports"
    return [name for name in TRANSPORT.findall(text) if not (transports / f"{name}.py").exists()]


CHECKS = [missing_files, missing_dotted_names, missing_checks, missing_commands, missing_error_codes,
          missing_setting_keys, missing_identifiers, missing_transports]


def test_the_site_builds_strictly(tmp_path):
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                           cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "site" / "quickstart-django" / "index.html").exists()


def test_every_name_the_pages_mention_exists():
    missing = {f"{page.relative_to(ROOT)}: {check.__name__}": found for page in PAGES for check in CHECKS
               if (found := check(text_of(page)))}
    assert missing == {}


def test_the_architecture_names_every_transport_and_only_those():
    # jsonrpc.py: what a2a.py and mcp.py share; ucp_shapes.py, ucp_events.py, ucp_testing.py: what ucp.py maps,
    # its order webhooks and the suite's simulation endpoint; acp_shapes.py, acp_events.py: what acp.py maps
    # and its order webhooks; mcp_route.py: mcp.py's route, importing it on the first request. None is a transport.
    helpers = {"__init__", "jsonrpc", "ucp_shapes", "ucp_events", "ucp_testing", "acp_shapes", "acp_events",
               "mcp_route"}
    modules = {path.stem for path in (ROOT / "agents_protocol" / "transports").glob("*.py")} - helpers
    assert modules == {"a2a", "pactspec", "mcp", "ucp", "acp"}
    assert set(TRANSPORT.findall(text_of(ROOT / "docs" / "architecture.md"))) == modules


FABRICATED = """
Read `agents_protocol/http/teleport.py` and `core/warp_drive.py`, run `manage.py agents_teleport`,
subclass `agents_protocol.http.pipeline.WarpView`, mind `agents_protocol.W099`, set
`AGENTS_PROTOCOL["WARP_FACTOR"]` and `WARP_CORE_LIMIT`, expect 400 `warp_overload`, and read
`transports/smoke_signals.py`.
"""


def test_a_fabricated_name_of_each_kind_is_caught():
    assert {check.__name__: check(FABRICATED) for check in CHECKS} == {
        "missing_files": ["agents_protocol/http/teleport.py", "core/warp_drive.py", "transports/smoke_signals.py"],
        "missing_dotted_names": ["agents_protocol.http.pipeline.WarpView"],
        "missing_checks": ["agents_protocol.W099"],
        "missing_commands": ["agents_teleport"],
        "missing_error_codes": ["warp_overload"],
        "missing_setting_keys": ["WARP_FACTOR"],
        "missing_identifiers": ["WARP_CORE_LIMIT", "warp_overload"],
        "missing_transports": ["smoke_signals"],
    }


WORD_BUDGETS = {"docs/performance.md": 2_500, "docs/architecture.md": 1_500}
DOCS_WORD_BUDGET = 20_000  # a newcomer reads the whole site in about 15 minutes


def words(path):
    return len(path.read_text().split())


def test_the_docs_stay_within_their_word_budgets():
    assert sum(words(page) for page in (ROOT / "docs").glob("*.md")) <= DOCS_WORD_BUDGET
    assert {name: words(ROOT / name) for name in WORD_BUDGETS if words(ROOT / name) > WORD_BUDGETS[name]} == {}
