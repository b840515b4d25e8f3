"""The reusable app uses only the public API of its dependencies (Django, DRF, gunicorn, the
standard library …): no private name, no replaced function. Each would break silently at a
minor release of a library, in someone else's shop.

Every module under agents_protocol/ is read as a syntax tree and these are listed:
- an import of a private name or module from outside the app (`from x import _y`, `import x._y`);
- a private attribute (`_name`, not a dunder) read on anything but the app's own: `self`/`cls`,
  the app's modules, or a class or function the module defines;
- Django's database internals that carry no underscore but no documentation either (UNDOCUMENTED);
- a private name read or written by its string (`getattr(x, "_y")`, `"_y" in x.__dict__`);
- an assignment to an attribute of an imported module or object (`util.write_error = …`,
  `setattr(module, …)`): monkeypatching.
"""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = "agents_protocol"

# Underscore names that their libraries document as public API.
DOCUMENTED = {
    "_meta",  # Django's Model _meta API (docs/ref/models/meta)
    "_asdict", "_replace", "_fields", "_make",  # collections.namedtuple / typing.NamedTuple
}
# Django's database internals without an underscore that its documentation does not cover: the
# tricks that bypass the ORM or Django's cursor (rebuilding row loading, the DB-API connection).
UNDOCUMENTED = {
    "get_db_converters", "get_col", "wrap_database_errors", "validate_no_broken_transaction",
    "close_if_health_check_failed", "ensure_connection", "queries_logged", "execute_wrappers", "create_cursor",
}
NAME_BY_STRING = {"getattr", "setattr", "hasattr", "delattr"}


def is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def is_external(module):
    return module != APP and not module.startswith(f"{APP}.")


def root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class Offences(ast.NodeVisitor):
    def __init__(self, path, root):
        self.path = path
        self.root = root
        self.external = set()  # names bound to an imported module or object from outside the app
        self.own = {"self", "cls"}  # names of the app's own: its modules, the module's classes and functions
        self.found = []

    def offence(self, node, what):
        self.found.append(f"{self.path.relative_to(self.root)}:{node.lineno}: {what}")

    def visit_Import(self, node):
        for alias in node.names:
            bound = alias.asname or alias.name.split(".")[0]
            if is_external(alias.name):
                self.external.add(bound)
                if any(is_private(part) for part in alias.name.split(".")):
                    self.offence(node, f"imports the private module {alias.name}")
            else:
                self.own.add(bound)

    def visit_ImportFrom(self, node):
        module = node.module or ""
        if node.level or not is_external(module):
            self.own.update(alias.asname or alias.name for alias in node.names)
            return
        if any(is_private(part) for part in module.split(".")):
            self.offence(node, f"imports from the private module {module}")
        for alias in node.names:
            self.external.add(alias.asname or alias.name)
            if is_private(alias.name):
                self.offence(node, f"imports the private name {module}.{alias.name}")

    def visit_ClassDef(self, node):
        self.own.add(node.name)
        self.generic_visit(node)

    def visit_FunctionDef(self, node):
        self.own.add(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Attribute(self, node):
        if is_private(node.attr) and node.attr not in DOCUMENTED and not self.is_own(node.value):
            self.offence(node, f"reads the private attribute {ast.unparse(node)}")
        elif node.attr in UNDOCUMENTED and not self.is_own(node.value):
            self.offence(node, f"uses Django's undocumented {ast.unparse(node)}")
        self.generic_visit(node)

    def is_own(self, node):
        return isinstance(node, ast.Name) and node.id in self.own

    def visit_Call(self, node):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name in NAME_BY_STRING and len(node.args) >= 2:
            target, attribute = node.args[0], node.args[1]
            if isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
                if is_private(attribute.value) and attribute.value not in DOCUMENTED and not self.is_own(target):
                    self.offence(node, f"{name}() of the private attribute {attribute.value!r}")
            if name in {"setattr", "delattr"} and root_name(target) in self.external:
                self.offence(node, f"{name}() on the imported {ast.unparse(target)}")
        self.generic_visit(node)

    def visit_Compare(self, node):
        operands = [node.left, *node.comparators]
        looks_into_dict = any(isinstance(operand, ast.Attribute) and operand.attr == "__dict__"
                              and not self.is_own(operand.value) for operand in operands)
        private_strings = [operand.value for operand in operands
                           if isinstance(operand, ast.Constant) and isinstance(operand.value, str)
                           and is_private(operand.value)]
        if looks_into_dict and private_strings:
            self.offence(node, f"looks for the private attribute {private_strings[0]!r} in a __dict__")
        self.generic_visit(node)

    def visit_Assign(self, node):
        for target in node.targets:
            self.check_target(target)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self.check_target(node.target)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self.check_target(node.target)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for target in node.targets:
            self.check_target(target)
        self.generic_visit(node)

    def check_target(self, target):
        for element in target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]:
            if isinstance(element, ast.Attribute) and root_name(element) in self.external:
                self.offence(element, f"replaces {ast.unparse(element)} of an imported module or object")


def offences_in(path, root=ROOT):
    """The offences of one module, in source order. Names are collected over the whole module
    first (an import or a def may come after the function that uses it)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    collector = Offences(path, root)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            collector.visit_Import(node)
        elif isinstance(node, ast.ImportFrom):
            collector.visit_ImportFrom(node)
        elif isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            collector.own.add(node.name)
    collector.found.clear()  # the import offences are found again by the walk below
    collector.visit(tree)
    return collector.found


def app_modules():
    return sorted((ROOT / APP).rglob("*.py"))


def test_the_app_uses_no_private_name_of_its_dependencies_and_replaces_none():
    found = [offence for path in app_modules() for offence in offences_in(path)]
    assert not found, "\n".join(["private names or replaced functions in the app:", *found])


# The walk itself, on code that does each thing

def offences_of(source, tmp_path):
    module = tmp_path / "module.py"
    module.write_text(source)
    return [offence.split(": ", 1)[1] for offence in offences_in(module, root=tmp_path)]


@pytest.mark.parametrize("source, expected", [
    ("from gunicorn.http.message import _ip_in_allow_list",
     "imports the private name gunicorn.http.message._ip_in_allow_list"),
    ("import django.utils._os", "imports the private module django.utils._os"),
    ("from django.utils._os import safe_join", "imports from the private module django.utils._os"),
    ("import sys\nframe = sys._getframe()", "reads the private attribute sys._getframe"),
    ("def f(request):\n    return request._request", "reads the private attribute request._request"),
    ("def f(connection):\n    return connection.ops.get_db_converters",
     "uses Django's undocumented connection.ops.get_db_converters"),
    ("def f(request):\n    return getattr(request, '_user', None)", "getattr() of the private attribute '_user'"),
    ("def f(request):\n    return '_user' in request.__dict__",
     "looks for the private attribute '_user' in a __dict__"),
    ("from gunicorn import util\nutil.write_error = print",
     "replaces util.write_error of an imported module or object"),
    ("from gunicorn.http import message\nsetattr(message, 'check', print)",
     "setattr() on the imported message"),
    ("from rest_framework.request import Request\nRequest.method = property(len)",
     "replaces Request.method of an imported module or object"),
])
def test_the_walk_finds(source, expected, tmp_path):
    assert expected in offences_of(source, tmp_path)


def test_the_walk_leaves_the_apps_own_private_names_and_documented_ones(tmp_path):
    source = (
        "from agents_protocol.http import publishing\n"
        "from .chain import _seal\n"
        "from django.db import models\n"
        "class Thing:\n"
        "    def f(self, model, row):\n"
        "        self._cache = row._asdict()\n"
        "        publishing._rendered.cache_clear()\n"
        "        return model._meta.get_field('id'), Thing._helper, _later()\n"
        "def _later():\n"
        "    return None\n"
    )
    assert offences_of(source, tmp_path) == []
