"""Match a request's (path, method) against the configured endpoints.

The route table is built once per configuration snapshot, so an endpoint changed in
admin moves the route on the next request. Path templates use `:name` segments.

A template ending in a `:name` segment also answers without that segment, taking the
value from the query string instead (`/detail/:id` serves `/detail?id=…`), but only
when no route matches the path as written.
"""
import re
from dataclasses import dataclass
from functools import lru_cache

WELL_KNOWN = "/.well-known/"  # where every endpoint lives (models.ENDPOINT_PATH)
API_PREFIX = "/.well-known/agents/api"

SESSION_CREATE, SESSION_DELETE, AUDIT = "session.create", "session.delete", "audit"


@dataclass(frozen=True)
class Route:
    name: str  # capability name, or SESSION_CREATE / SESSION_DELETE / AUDIT
    method: str
    pattern: re.Pattern
    capability: object = None

    @property
    def short_pattern(self):
        """The pattern without a trailing `:name` segment, or None."""
        return _short_pattern(self.pattern.pattern)


@dataclass(frozen=True)
class RouteMatch:
    route: Route
    path_params: dict


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


@lru_cache(maxsize=256)
def _short_pattern(regex):
    trailing = re.search(r"/\(\?P<\w+>\[\^/\]\+\)/\?$", regex)
    return re.compile(regex[: trailing.start()] + "/?") if trailing else None


@lru_cache(maxsize=8)
def route_table(config):
    routes = [
        Route(SESSION_CREATE, "POST", compile_template(config.session.create_endpoint)),
        Route(SESSION_DELETE, "DELETE", compile_template(config.session.delete_endpoint)),
    ]
    if config.audit.enabled:
        routes.append(Route(AUDIT, "GET", compile_template(config.audit.endpoint)))
    routes += [
        Route(c.name, c.method, compile_template(c.endpoint), c) for c in config.enabled_capabilities
    ]
    return tuple(routes)


def is_api_path(config, path):
    """True for paths under the API prefix or matching any configured endpoint."""
    if path.startswith(API_PREFIX + "/") or path == API_PREFIX:
        return True
    return any(_matches(route, path, short) is not None for route in route_table(config) for short in (False, True))


def resolve(config, path, method):
    """The route for (path, method); raises RouteNotFound or MethodNotAllowed."""
    for short in (False, True):
        candidates = [(route, found) for route in route_table(config)
                      if (found := _matches(route, path, short)) is not None]
        for route, found in candidates:
            if route.method == method:
                return RouteMatch(route, {k: v for k, v in found.groupdict().items() if v is not None})
        if candidates:
            raise MethodNotAllowed(sorted({route.method for route, _ in candidates}))
    raise RouteNotFound(path)


def _matches(route, path, short):
    pattern = route.short_pattern if short else route.pattern
    return pattern.fullmatch(path) if pattern is not None else None
