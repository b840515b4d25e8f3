"""Match a request's (path, method) against the configured endpoints.

The route table is built once per configuration snapshot, so an endpoint changed in
admin moves the route on the next request. Path templates use `:name` segments.

A template ending in a `:name` segment also answers without that segment, taking the
value from the query string instead (`/detail/:id` serves `/detail?id=…`), but only
when no route matches the path as written.

Of the routes matching a path, the first in the table with the request's method wins;
the others' methods make the 405's Allow. Every call is routed, so the table is indexed
once per snapshot: a path spelled like a template without `:name` segments (the most
of them) finds its answer, worked out in advance, in a dict; any other path can only
match the templates with such segments, the only ones it still tries as regexes.
"""
import re
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType

from agents_protocol.core.reserved import AUDIT, SESSION_CREATE, SESSION_DELETE

WELL_KNOWN = "/.well-known/"  # where every endpoint lives (models.ENDPOINT_PATH)
AGENTS_NAMESPACE = "/.well-known/agents/"  # the API, the transports, the inspector: answered in JSON
API_PREFIX = "/.well-known/agents/api"

NO_ROUTES = MappingProxyType({})


@dataclass(frozen=True)
class Route:
    name: str  # capability name, or SESSION_CREATE / SESSION_DELETE / AUDIT
    method: str
    pattern: re.Pattern
    capability: object = None
    template: str = ""  # as configured, `:name` segments and all

    @property
    def short_template(self):
        """The template without a trailing `:name` segment, or None."""
        head, _, last = self.template.rpartition("/")
        return head if last.startswith(":") else None


@dataclass(frozen=True)
class RouteMatch:
    route: Route
    path_params: MappingProxyType  # read-only: an answer worked out in advance serves every request


class RouteNotFound(Exception):
    pass


class MethodNotAllowed(Exception):
    def __init__(self, allowed):
        super().__init__(allowed)
        self.allowed = allowed


def compile_template(template):
    parts = []
    for segment in template.split("/"):
        if segment.startswith(":"):
            parts.append(f"(?P<{segment[1:]}>[^/]+)")
        else:
            parts.append(re.escape(segment))
    return re.compile("/".join(parts) + "/?")


def has_parameters(template):
    return any(segment.startswith(":") for segment in template.split("/"))


@lru_cache(maxsize=8)
def route_table(config):
    routes = [
        _route(SESSION_CREATE, "POST", config.session.create_endpoint),
        _route(SESSION_DELETE, "DELETE", config.session.delete_endpoint),
    ]
    if config.audit.enabled:
        routes.append(_route(AUDIT, "GET", config.audit.endpoint))
    routes += [_route(c.name, c.method, c.endpoint, c) for c in config.enabled_capabilities]
    return tuple(routes)


def _route(name, method, template, capability=None):
    return Route(name, method, compile_template(template), capability, template)


class TemplateForm:
    """The routes of one form of the templates (as written, or shortened), indexed for lookup."""

    def __init__(self, routes_and_templates):
        """`routes_and_templates`: (route, its template in this form), in table order."""
        patterns = [(route, compile_template(template)) for route, template in routes_and_templates]
        self._parametric = tuple(
            (route, pattern) for (route, pattern), (_, template) in zip(patterns, routes_and_templates)
            if has_parameters(template)
        )
        # A template without parameters matches itself and itself with a trailing slash.
        self._answers = {
            path: self._scan(patterns, path)
            for _, template in routes_and_templates if not has_parameters(template)
            for path in (template, template + "/")
        }

    def candidates(self, path):
        """Method → RouteMatch of the first route of that method matching `path` (empty when none does)."""
        answer = self._answers.get(path)
        return answer if answer is not None else self._scan(self._parametric, path)

    @staticmethod
    def _scan(patterns, path):
        found = {}
        for route, pattern in patterns:
            match = pattern.fullmatch(path)
            if match is not None and route.method not in found:  # every group matched: none is optional
                found[route.method] = RouteMatch(route, MappingProxyType(match.groupdict()))
        return MappingProxyType(found) if found else NO_ROUTES


@lru_cache(maxsize=8)
def route_forms(config):
    """The table's two forms, in the order they are tried: as written, then shortened."""
    table = route_table(config)
    return (
        TemplateForm([(route, route.template) for route in table]),
        TemplateForm([(route, route.short_template) for route in table if route.short_template is not None]),
    )


def is_api_path(config, path):
    """True for paths under the API prefix or matching any configured endpoint."""
    if path.startswith(API_PREFIX + "/") or path == API_PREFIX:
        return True
    return any(form.candidates(path) for form in route_forms(config))


def resolve(config, path, method):
    """The route for (path, method); raises RouteNotFound or MethodNotAllowed."""
    for form in route_forms(config):
        candidates = form.candidates(path)
        if method in candidates:
            return candidates[method]
        if candidates:
            raise MethodNotAllowed(sorted(candidates))
    raise RouteNotFound(path)
