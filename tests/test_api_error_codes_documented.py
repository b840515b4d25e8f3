"""docs/api.md's error table lists every error code the agent API can answer, and nothing else.

The codes are collected from the source with `ast`, not from a list kept by hand: every
module of agents_protocol/ (migrations excluded), the site's provider acme/agents.py, and the
shop modules the provider imports (cart/services.py among them: CartError carries the cart's
codes, which the provider passes on as they are).

How a code is found. The *forms* that carry a code are derived from the source:

- a class whose `__init__` keeps one of its parameters as `self.code` (CapabilityError,
  CartError, A2A's RpcError), and any subclass of it; a subclass may also set `code = "…"`;
- a function that passes one of its parameters on as the code of a form (`bad_request`,
  `not_found`, sessions' `_unauthorized` …) or writes it under a `"code"` key of a dict
  literal (A2A's `_details`); the parameter's default (`"invalid_request"`, `"not_found"`) is a
  code the API answers whenever a caller leaves it out, so it counts as raised.

Every call of a form (by positional index or by `code=`), every `code=` keyword argument,
and every `"code": …` entry of a dict literal then gives its code: a string literal, either
branch of a conditional, or a name assigned one in the function or the module. Integers are
JSON-RPC's numeric codes, not the envelope's. `<something>.code` passes on a code already
collected where that error was made. Anything else is a code made at run time: the test fails
unless the place is in ALLOWED_DYNAMIC below, with the reason.
"""
import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API_DOC = ROOT / "docs" / "api.md"
PROVIDER = "acme/agents.py"
SHOP_PACKAGES = ("acme", "catalog", "cart")
GENERATOR = ROOT / "scripts" / "api_examples.py"  # make docs-api writes docs/api.md from its INTRO

# Places where a code is computed at run time, so no literal can be read: (file, function) → why
# the code is collected elsewhere. Kept exact: an entry that no longer matches fails as well.
ALLOWED_DYNAMIC = {
    ("agents_protocol/transports/a2a.py", "A2AView.wire_refusal"):
        # error_answer() writes {"code": …} into a JSON-RPC error: there the code is JSON-RPC's
        # number (-32602 …), carried by an RpcError or picked for a refusal by _rpc_code(); the
        # refusal's own code goes into the error's data through _details(refusal.code, …) and was
        # collected where it was raised.
        "JSON-RPC's numeric error code, carried by the RpcError or picked by _rpc_code()",
    ("agents_protocol/transports/a2a.py", "unavailable"):
        # INTERNAL_ERROR is JSON-RPC's -32603, imported from transports/jsonrpc.py.
        "JSON-RPC's numeric error code, imported from jsonrpc.py",
    ("agents_protocol/http/exceptions.py", "refusal_in"):
        # Reads back the code of the exception handler's envelope: collected where it was raised.
        "the code of the envelope the exception handler wrote",
    ("agents_protocol/transports/mcp.py", "error_message"):
        # The same for MCP: ErrorData's code is JSON-RPC's number, carried by the McpError (raised
        # with it, or picked by rpc_refusal() and session_refusal()); the protocol's code goes into
        # the error's data as error.code, collected where the McpError or the refusal was made.
        "JSON-RPC's numeric error code, carried by the McpError",
    ("agents_protocol/transports/ucp_shapes.py", "applied_discount"):
        "UCP's applied discount: its code is the voucher code the platform sent",
}

# Callees that take a `code=` which is no answer of the API (Django's validation of admin forms,
# the activity page's filter on recorded calls, a discount's voucher code and its lookup).
NOT_API_CALLEES = {"ValidationError", "RegexValidator", "CommandError", "calls_in", "Discount", "filter"}


# --------------------------------------------------------------------------- the collector

@dataclass(frozen=True)
class Form:
    """A callable that carries an error code: its code argument, and where its status comes from."""

    name: str
    index: int | None  # position of the code among the call's positional arguments
    keyword: str | None
    default: str | None = None  # the code when a call leaves it out
    status: object = None  # an int, ("arg", index, keyword), ("map", {code: status}) or None


@dataclass(frozen=True)
class Found:
    code: str
    status: int | None
    where: str  # path:line


@dataclass
class Collected:
    found: list = field(default_factory=list)
    dynamic: dict = field(default_factory=dict)  # (path, function) → [unparsed expression]

    @property
    def codes(self):
        return {f.code for f in self.found}

    def statuses(self, code):
        return {f.status for f in self.found if f.code == code and f.status is not None}


class Unresolved(Exception):
    pass


class PassThrough(Exception):
    """The expression forwards a code collected elsewhere (a parameter, `error.code`)."""


def _params(function, in_class):
    args = function.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if in_class and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    return positional, [a.arg for a in args.kwonlyargs], defaults


def _callee(call):
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _argument(call, index, keyword):
    for kw in call.keywords:
        if kw.arg == keyword and keyword is not None:
            return kw.value
    if index is not None and index < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[:index + 1]):
        return call.args[index]
    return None


def _str_constant(node):
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


class Module:
    """One parsed file, with the function (and class) enclosing each node."""

    def __init__(self, path, source):
        self.path = path
        self.tree = ast.parse(source, filename=path)
        self.scopes = []  # (qualname, FunctionDef | ClassDef | Module, parent class or None)
        self._walk(self.tree, "", None)

    def _walk(self, node, prefix, in_class):
        self.scopes.append((prefix.rstrip(".") or "<module>", node, in_class))
        for child in ast.iter_child_nodes(node):
            self._visit(child, prefix, in_class)

    def _visit(self, node, prefix, in_class):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._walk(node, f"{prefix}{node.name}.", in_class)
        elif isinstance(node, ast.ClassDef):
            self._walk(node, f"{prefix}{node.name}.", node)
        else:
            for child in ast.iter_child_nodes(node):
                self._visit(child, prefix, in_class)

    def own_nodes(self, scope):
        """The nodes of a scope, without those of the functions and classes nested in it."""
        pending = list(ast.iter_child_nodes(scope))
        while pending:
            node = pending.pop()
            yield node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                pending.extend(ast.iter_child_nodes(node))

    def functions(self):
        for qualname, node, in_class in self.scopes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield qualname, node, in_class is not None and node in in_class.body


def _assigned(nodes, name):
    """The values assigned to `name` by the assignments among `nodes` (tuple unpacking included)."""
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id == name:
                    yield node.value
                elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                    for element, value in zip(target.elts, node.value.elts):
                        if isinstance(element, ast.Name) and element.id == name:
                            yield value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name and node.value:
            yield node.value


class Collector:
    def __init__(self, sources):
        """`sources`: {relative path: Python source}."""
        self.modules = [Module(path, text) for path, text in sorted(sources.items())]
        self.forms = {}
        self._derive_forms()

    # Forms -----------------------------------------------------------------------------

    def _derive_forms(self):
        changed = True
        while changed:
            changed = False
            for form in [*self._carrier_classes(), *self._forwarding_functions()]:
                if form.name not in self.forms:
                    self.forms[form.name] = form
                    changed = True

    def _carrier_classes(self):
        for module in self.modules:
            for node in ast.walk(module.tree):
                if not isinstance(node, ast.ClassDef):
                    continue
                init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
                if init is not None:
                    form = self._carrier_form(node, init)
                    if form is not None:
                        yield form
                        continue
                base = next((self.forms[b.id] for b in node.bases if isinstance(b, ast.Name) and b.id in self.forms), None)
                if base is not None and init is None:
                    yield Form(node.name, base.index, base.keyword, base.default, base.status)
                elif base is not None:
                    form = self._passing_form(node, init, base)
                    if form is not None:
                        yield form

    def _passing_form(self, cls, init, base):
        """A subclass of a carrier whose `__init__` passes one of its parameters on to the base's
        `super().__init__` as the code (MCP's McpError)."""
        positional, keyword_only, defaults = _params(init, in_class=True)
        for node in ast.walk(init):
            if not (isinstance(node, ast.Call) and _callee(node) == "__init__" and isinstance(node.func.value, ast.Call)
                    and _callee(node.func.value) == "super"):
                continue
            code = _argument(node, base.index, base.keyword)
            if not (isinstance(code, ast.Name) and code.id in positional + keyword_only):
                return None
            status = base.status
            if isinstance(status, tuple) and status[0] == "arg":
                passed = _argument(node, status[1], status[2])
                status = (("arg", positional.index(passed.id), passed.id)
                          if isinstance(passed, ast.Name) and passed.id in positional else None)
            return Form(cls.name, *self._slot(code.id, positional), _str_constant(defaults.get(code.id)), status)
        return None

    def _carrier_form(self, cls, init):
        positional, keyword_only, defaults = _params(init, in_class=True)
        kept = {}  # attribute of self → the expression kept in it
        for node in ast.walk(init):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    pairs = zip(target.elts, node.value.elts) if (
                        isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple)) else [(target, node.value)]
                    for element, value in pairs:
                        if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id == "self":
                            kept[element.attr] = value
        code = kept.get("code")
        if not (isinstance(code, ast.Name) and code.id in positional + keyword_only):
            return None
        return Form(cls.name, *self._slot(code.id, positional), _str_constant(defaults.get(code.id)),
                    self._class_status(cls, kept.get("status"), code.id, positional))

    @staticmethod
    def _slot(name, positional):
        return (positional.index(name) if name in positional else None), name

    def _class_status(self, cls, status, code_param, positional):
        if isinstance(status, ast.Name) and status.id in positional:
            return ("arg", positional.index(status.id), status.id)
        if isinstance(status, ast.Subscript) and isinstance(status.slice, ast.Name) and status.slice.id == code_param:
            table = status.value.attr if isinstance(status.value, ast.Attribute) else getattr(status.value, "id", None)
            for value in _assigned(cls.body, table):
                if isinstance(value, ast.Dict):
                    return ("map", {_str_constant(k): v.value for k, v in zip(value.keys, value.values)
                                    if _str_constant(k) and isinstance(v, ast.Constant)})
        return None

    def _forwarding_functions(self):
        for module in self.modules:
            for qualname, function, is_method in module.functions():
                positional, keyword_only, defaults = _params(function, in_class=is_method)
                params = positional + keyword_only
                for node in module.own_nodes(function):
                    forwarded = self._forwarded_param(node, params)
                    if forwarded is None:
                        continue
                    name, inner_status = forwarded
                    status = inner_status
                    if isinstance(inner_status, ast.Constant) and isinstance(inner_status.value, int):
                        status = inner_status.value
                    elif isinstance(inner_status, ast.Name) and inner_status.id in positional:
                        status = ("arg", positional.index(inner_status.id), inner_status.id)
                    elif not isinstance(inner_status, (int, tuple)):
                        status = None
                    yield Form(function.name, *self._slot(name, positional), _str_constant(defaults.get(name)), status)

    def _forwarded_param(self, node, params):
        """(parameter, status) when `node` passes a parameter on as a code; the status is an int,
        a ("map", …) or the node of the status argument."""
        if isinstance(node, ast.Call) and _callee(node) in self.forms:
            form = self.forms[_callee(node)]
            code = _argument(node, form.index, form.keyword)
            if isinstance(code, ast.Name) and code.id in params:
                status = form.status
                if isinstance(status, tuple) and status[0] == "arg":
                    status = _argument(node, status[1], status[2])
                return code.id, status
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if _str_constant(key) == "code" and isinstance(value, ast.Name) and value.id in params:
                    return value.id, None
        return None

    # Codes -----------------------------------------------------------------------------

    def collect(self):
        collected = Collected()
        for form in self.forms.values():
            if form.default is not None:
                collected.found.append(Found(form.default, self._fixed_status(form, form.default), f"default of {form.name}()"))
        for module in self.modules:
            for qualname, scope, in_class in module.scopes:
                params = set()
                if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    positional, keyword_only, _ = _params(scope, in_class=in_class is not None)
                    params = set(positional + keyword_only) | {"self", "cls"}
                if isinstance(scope, ast.ClassDef):
                    self._class_code(module, scope, collected)
                for node in module.own_nodes(scope):
                    for expression, status in self._code_expressions(node):
                        self._record(module, qualname, scope, params, expression, status, node, collected)
        return collected

    def _class_code(self, module, cls, collected):
        """`code = "…"` in the body of a subclass of a carrier."""
        if not any(isinstance(b, ast.Name) and b.id in self.forms for b in cls.bases):
            return
        for value in _assigned(cls.body, "code"):
            code = _str_constant(value)
            if code is not None:
                status = next((v.value for v in _assigned(cls.body, "status") if isinstance(v, ast.Constant)), None)
                collected.found.append(Found(code, status, f"{module.path}:{value.lineno}"))

    def _code_expressions(self, node):
        """(code expression, status) pairs a node carries."""
        if isinstance(node, ast.Call):
            name = _callee(node)
            form = self.forms.get(name)
            if form is not None:
                expression = _argument(node, form.index, form.keyword)
                if expression is not None:
                    yield expression, self._call_status(form, node)
            elif name not in NOT_API_CALLEES:
                for kw in node.keywords:
                    if kw.arg == "code":
                        yield kw.value, None
        elif isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values):
                if _str_constant(key) == "code" and not isinstance(value, (ast.Dict, ast.List)):
                    yield value, None  # a nested object under "code" is a JSON schema, not a code

    def _call_status(self, form, call):
        status = form.status
        if isinstance(status, tuple) and status[0] == "arg":
            value = _argument(call, status[1], status[2])
            return value.value if isinstance(value, ast.Constant) and isinstance(value.value, int) else None
        return status

    @staticmethod
    def _fixed_status(form, code):
        if isinstance(form.status, int):
            return form.status
        if isinstance(form.status, tuple) and form.status[0] == "map":
            return form.status[1].get(code)
        return None

    def _record(self, module, qualname, scope, params, expression, status, node, collected):
        try:
            codes = self._evaluate(module, scope, params, expression, depth=0)
        except PassThrough:
            return
        except Unresolved:
            collected.dynamic.setdefault((module.path, qualname), []).append(ast.unparse(expression))
            return
        for code in codes:
            known = status[1].get(code) if isinstance(status, tuple) and status[0] == "map" else status
            collected.found.append(Found(code, known if isinstance(known, int) else None, f"{module.path}:{node.lineno}"))

    def _evaluate(self, module, scope, params, expression, depth):
        """The string codes `expression` can be (ints are JSON-RPC's: none)."""
        if depth > 10:
            raise Unresolved
        if isinstance(expression, ast.Constant):
            if isinstance(expression.value, str):
                return {expression.value}
            if isinstance(expression.value, int) and not isinstance(expression.value, bool):
                return set()
            raise Unresolved
        if isinstance(expression, ast.UnaryOp) and isinstance(expression.operand, ast.Constant):
            return set()  # -32602: a JSON-RPC number
        if isinstance(expression, ast.IfExp):
            return (self._evaluate(module, scope, params, expression.body, depth + 1)
                    | self._evaluate(module, scope, params, expression.orelse, depth + 1))
        if isinstance(expression, ast.BoolOp):
            return set().union(*(self._evaluate(module, scope, params, v, depth + 1) for v in expression.values))
        if isinstance(expression, ast.Attribute) and expression.attr == "code":
            raise PassThrough
        if isinstance(expression, ast.Name):
            local = list(_assigned(module.own_nodes(scope), expression.id)) if scope is not module.tree else []
            if not local and expression.id in params:
                raise PassThrough  # the enclosing function is a form: its callers' codes are collected
            values = local or list(_assigned(module.tree.body, expression.id))
            if not values:
                raise Unresolved
            return set().union(*(self._evaluate(module, scope, params, v, depth + 1) for v in values))
        raise Unresolved


# --------------------------------------------------------------------------- the sources

def _module_file(dotted):
    path = ROOT.joinpath(*dotted.split("."))
    for candidate in (path.with_suffix(".py"), path / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def shop_modules_of(path):
    """The files of acme, catalog and cart that the module at `path` imports."""
    tree = ast.parse((ROOT / path).read_text())
    package = ".".join(Path(path).with_suffix("").parts[:-1])
    files = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([package, base]).strip(".")
            for alias in node.names:
                found = _module_file(f"{base}.{alias.name}") or _module_file(base)
                if found:
                    files.add(found)
        elif isinstance(node, ast.Import):
            files.update(f for alias in node.names if (f := _module_file(alias.name)))
    return {f for f in files if f.relative_to(ROOT).parts[0] in SHOP_PACKAGES}


def api_sources():
    files = {p for p in (ROOT / "agents_protocol").rglob("*.py") if "migrations" not in p.relative_to(ROOT).parts}
    files.add(ROOT / PROVIDER)
    files |= shop_modules_of(PROVIDER)
    return {str(p.relative_to(ROOT)): p.read_text() for p in files}


SOURCES = api_sources()
COLLECTED = Collector(SOURCES).collect()


# --------------------------------------------------------------------------- the document

ROW = re.compile(r"^\| (\d{3}) \| `([a-z][a-z0-9_]*)` \| ([^|]+?) \| ([^|]+?) \|$")


def error_table():
    """{code: (status, when, what to do)} from the table of docs/api.md's "Error codes" section."""
    text = API_DOC.read_text()
    start = text.index("\n## Error codes\n")
    end = text.find("\n## ", start + 1)
    lines = [line for line in text[start:end].splitlines() if line.startswith("|")]
    assert lines[:2] == ["| status | code | when | what the agent should do |", "|---|---|---|---|"], lines[:2]
    table = {}
    for line in lines[2:]:
        row = ROW.match(line)
        assert row, f"not a row of status, `code`, when, what to do: {line}"
        status, code, when, todo = row.groups()
        assert code not in table, f"{code} has two rows"
        table[code] = (int(status), when, todo)
    return table


TABLE = error_table()


# --------------------------------------------------------------------------- the checks

def test_the_sources_include_the_provider_and_the_cart_services_it_passes_errors_on_from():
    assert {"agents_protocol/core/errors.py", "agents_protocol/http/pipeline.py", "agents_protocol/transports/a2a.py",
            PROVIDER, "cart/services.py"} <= set(SOURCES)
    assert not [path for path in SOURCES if "/migrations/" in path]


def test_the_code_carrying_forms_are_found_in_the_source():
    forms = Collector(SOURCES).forms
    assert forms["CapabilityError"].index == 1 and forms["CapabilityError"].status == ("arg", 0, "status")
    assert forms["bad_request"].default == "invalid_request" and forms["bad_request"].status == 400
    assert forms["not_found"].default == "not_found" and forms["not_found"].status == 404
    assert forms["CartError"].index == 0 and forms["CartError"].status[0] == "map"


def test_every_code_the_api_can_answer_is_in_the_table():
    undocumented = {f"{f.code} ({f.where})" for f in COLLECTED.found if f.code not in TABLE}
    assert not undocumented, "codes raised but missing from docs/api.md's error table: " + ", ".join(sorted(undocumented))


def test_every_documented_code_is_answered_by_something():
    assert not set(TABLE) - COLLECTED.codes, "documented codes nothing raises: " + ", ".join(sorted(set(TABLE) - COLLECTED.codes))


def test_each_documented_status_is_the_one_the_code_is_raised_with():
    wrong = {code: (status, sorted(COLLECTED.statuses(code))) for code, (status, _, _) in TABLE.items()
             if COLLECTED.statuses(code) and status not in COLLECTED.statuses(code)}
    assert not wrong, f"documented status, raised with: {wrong}"
    one_status = {code for code in TABLE if len(COLLECTED.statuses(code)) == 1}
    # (ACP's `missing` is a message of a 200 answer, which has no status of its own.)
    assert len(one_status) >= len(TABLE) - 3, "most codes should have a status the source states"


def test_codes_made_at_run_time_are_only_the_allowed_ones():
    assert set(COLLECTED.dynamic) == set(ALLOWED_DYNAMIC), COLLECTED.dynamic


def test_each_row_says_when_and_what_to_do():
    for code, (_, when, todo) in TABLE.items():
        assert len(when) > 10 and len(todo) > 5, code


def test_make_docs_api_writes_the_same_table():
    """docs/api.md is regenerated by scripts/api_examples.py: its INTRO holds the table too."""
    tree = ast.parse(GENERATOR.read_text())
    intro = next(node.value.value for node in tree.body if isinstance(node, ast.Assign)
                 and any(isinstance(t, ast.Name) and t.id == "INTRO" for t in node.targets))
    assert API_DOC.read_text().startswith(intro)
    assert "\n## Error codes\n" in intro


# --------------------------------------------------------------------------- the collector can fail

ERRORS = (ROOT / "agents_protocol" / "core" / "errors.py").read_text()

SYNTHETIC = '''
from agents_protocol.core.errors import CapabilityError, bad_request, not_found

LATER = "code_from_module_constant"
RPC_A, RPC_B = -32600, -32601


class ShopError(Exception):
    STATUS_BY_CODE = {"shop_positional": 400, "shop_keyword": 409}

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.status = self.STATUS_BY_CODE[code]


class SoldOut(ShopError):
    code = "code_from_subclass_attribute"
    status = 410


class RpcError(Exception):
    def __init__(self, code, message):
        self.code, self.message = code, message


def refuse(code, message):
    return CapabilityError(403, code, message)


def details(code):
    return {"metadata": {"code": code}}


def handler(flag, error):
    CapabilityError(418, "capability_positional", "m")
    CapabilityError(418, code="capability_keyword", message="m")
    bad_request("m", "bad_request_positional")
    bad_request("m", code="bad_request_keyword")
    bad_request("m")
    not_found("m", "not_found_positional")
    not_found("m")
    ShopError("shop_positional", "m")
    ShopError(code="shop_keyword", message="m")
    code = "branch_one" if flag else "branch_two"
    refuse(code, "m")
    details("code_in_a_dict_of_a_helper")
    answer = {"ok": False, "code": "code_in_a_dict_literal"}
    other(code="code_keyword_of_any_call")
    CapabilityError(400, LATER, "m")
    CapabilityError(error.status, error.code, error.message)
    RpcError(RPC_A, "m")
    RpcError(-32601, "m")
    schema = {"code": {"type": "string"}}


def dynamic(error):
    CapabilityError(400, error.kind.lower(), "m")
'''


def test_the_collector_finds_a_code_in_every_form_it_knows():
    collected = Collector({"agents_protocol/core/errors.py": ERRORS, "shop/synthetic.py": SYNTHETIC}).collect()
    assert collected.codes == {
        "capability_positional", "capability_keyword", "bad_request_positional", "bad_request_keyword",
        "invalid_request", "not_found_positional", "not_found", "shop_positional", "shop_keyword",
        "code_from_subclass_attribute", "branch_one", "branch_two", "code_in_a_dict_of_a_helper",
        "code_in_a_dict_literal", "code_keyword_of_any_call", "code_from_module_constant",
        "not_implemented",  # errors.py's own not_implemented()
    }
    assert collected.statuses("capability_positional") == {418}
    assert collected.statuses("bad_request_positional") == {400}
    assert collected.statuses("invalid_request") == {400}
    assert collected.statuses("not_found") == {404}
    assert collected.statuses("shop_keyword") == {409}
    assert collected.statuses("branch_one") == {403}
    assert collected.statuses("code_from_subclass_attribute") == {410}
    assert collected.dynamic == {("shop/synthetic.py", "dynamic"): ["error.kind.lower()"]}


def test_a_code_missing_from_the_table_would_fail():
    raised = Collector({"agents_protocol/core/errors.py": ERRORS,
                        "x.py": 'CapabilityError(400, "brand_new_code", "m")\n'}).collect()
    assert "brand_new_code" in raised.codes and "brand_new_code" not in TABLE
