"""Match a request's (path, method) against the configured endpoints.

The route table is built once per configuration snapshot, so an endpoint changed in
admin moves the route on the next request. Path templates use `:name` segments.
"""
import re
from dataclasses import dataclass
from functools import lru_cache

API_PREFIX = "/.well-known/agents/api"

SESSION_CREATE, SESSION_DELETE = "session.create", "session.delete"


@dataclass(frozen=True)
class Route:
    name: str  # capability name, or SESSION_CREATE / SESSION_DELETE
    method: str
    pattern: re.Pattern
    capability: object = None


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


@lru_cache(maxsize=8)
def route_table(config):
    routes = [
        Route(SESSION_CREATE, "POST", compile_template(config.session.create_endpoint)),
        Route(SESSION_DELETE, "DELETE", compile_template(config.session.delete_endpoint)),
    ]
    routes += [
        Route(c.name, c.method, compile_template(c.endpoint), c) for c in config.enabled_capabilities
    ]
    return tuple(routes)


def is_api_path(config, path):
    """True for paths under the API prefix or matching any configured endpoint."""
    return path.startswith(API_PREFIX + "/") or path == API_PREFIX or any(
        route.pattern.fullmatch(path) for route in route_table(config)
    )


def resolve(config, path, method):
    """The route for (path, method); raises RouteNotFound or MethodNotAllowed."""
    allowed = []
    for route in route_table(config):
        found = route.pattern.fullmatch(path)
        if not found:
            continue
        if route.method == method:
            return RouteMatch(route, found.groupdict())
        allowed.append(route.method)
    if allowed:
        raise MethodNotAllowed(sorted(set(allowed)))
    raise RouteNotFound(path)
