"""Configuration (what agents may do) and runtime state (who is doing it).

Every configuration model validates itself in `clean()`, so admin, the import
command and the API all refuse a change that would publish an invalid
agents.json. Saving or deleting any configuration row bumps `ConfigRevision`
(see signals.py), which is how every worker notices a change at once.
"""
import re
from urllib.parse import urlsplit

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.deconstruct import deconstructible

from agents_protocol.core import schema as param_rules
from agents_protocol.core.fields import RowIdField
from agents_protocol.core.networks import address_network
from agents_protocol.core.reserved import (
    CALL_NAMES,
    MCP_ENDPOINTS,
    SERVED_PATHS,
    SERVED_PREFIXES,
)

CAPABILITY_NAME = RegexValidator(
    r"^[a-z][a-z0-9_.]*$",
    "Use lowercase letters, digits, dots and underscores, starting with a letter "
    "(for example search or cart.add).",
)
FLOW_NAME = RegexValidator(
    r"^[a-z][a-z0-9_.-]*$",
    "Use lowercase letters, digits, dots, hyphens and underscores, starting with a letter.",
)
PARAM_NAME = RegexValidator(
    r"^[A-Za-z_][A-Za-z0-9_]*$",
    "Use letters, digits and underscores, not starting with a digit.",
)
ENDPOINT_PATH = RegexValidator(
    r"^/\.well-known/([A-Za-z0-9._~-]+|:[a-z_][a-z0-9_]*)(/([A-Za-z0-9._~-]+|:[a-z_][a-z0-9_]*))*$",
    "Use an origin-relative path under /.well-known/ such as /.well-known/agents/api/detail/:id "
    "(no query string, no trailing slash, :name for path parameters). Keeping every endpoint under "
    "/.well-known/ lets the rest of the site run without a look at the agent configuration.",
)


@deconstructible
class EndpointTemplate:
    """An endpoint whose router pattern can be built (each :name once) and which claims no path the
    app serves itself (the documents, A2A, PactSpec, the inspector, MCP: core/reserved.py)."""

    def __call__(self, value):
        segments = value.split("/")
        names = [segment for segment in segments if segment.startswith(":")]
        if len(names) != len(set(names)):
            raise ValidationError("Each :name may appear once in a path.", code="repeated_parameter")
        pattern = template_pattern(value)
        if value.startswith(SERVED_PREFIXES) or any(pattern.fullmatch(path) for path in SERVED_PATHS):
            raise ValidationError(f"{value} would take a path the app serves itself (a discovery document, A2A, "
                                  "PactSpec, the inspector or MCP); choose another.", code="served_path")

    def __eq__(self, other):
        return isinstance(other, EndpointTemplate)


ENDPOINT_TEMPLATE = EndpointTemplate()
AGENT_NOTES_MAX_LENGTH = 4000  # a TextField's max_length binds its form only: clean() checks it too
NUL_REFUSED = "Null characters are not allowed."
OBJECT_IN_QUERY = "A GET takes its parameters from the query string, which cannot carry an object."


def template_pattern(template):
    """What paths `template` matches, each :name standing for one segment."""
    return re.compile("/".join("[^/]+" if s.startswith(":") else re.escape(s) for s in template.split("/")))


def hides(template, literal):
    """True when `template`, with :names, matches the path `literal` (which has none)."""
    return ":" in template and ":" not in literal and template_pattern(template).fullmatch(literal) is not None


def path_shape(template):
    """The template with its :names blanked: two templates of one shape match the same paths."""
    return "/".join(":" if segment.startswith(":") else segment for segment in template.split("/"))


PATH_PARAM_TYPES = ("string", "integer", "number", "boolean")


def path_param_problem(endpoint, declared):
    """Why the :names of `endpoint` cannot be filled from the parameters `declared` ({name: type}),
    or None. The path's value wins over the body and query (core/schema.py), so a :name without
    a parameter of a type one segment can carry would refuse every call."""
    for segment in endpoint.split("/"):
        name = segment[1:]
        if not segment.startswith(":"):
            continue
        if name not in declared:
            return (f"The path names :{name}, which is not one of this capability's parameters: declare it, "
                    f"or rename the path's :{name}.")
        if declared[name] not in PATH_PARAM_TYPES:
            return (f"The path's :{name} is one segment of text: its parameter must be a string, integer, "
                    f"number or boolean, not {declared[name]}.")
    return None


def takes_paths_of(first, later):
    """Whether a route at template `first`, tried before one at `later`, answers paths meant for it."""
    return path_shape(first) == path_shape(later) or hides(first, later)


def refuse_nul(instance, *names):
    """What Django's forms refuse, refused for every writer (`agents_config import` too): PostgreSQL
    cannot store text holding NUL."""
    for name in names:
        if "\x00" in (getattr(instance, name) or ""):
            raise ValidationError({name: NUL_REFUSED})


def refuse_unpublishable_url(instance, name):
    """A URL the documents publish must be a URI as RFC 3986 writes it: agents.json's schema says
    `format: uri`, which Django's URLValidator alone lets through ({, |, a lone %)."""
    from rfc3986_validator import validate_rfc3986  # here: it compiles its grammar on import (about 10 ms)

    value = getattr(instance, name)
    if not value.isascii():
        raise ValidationError({name: "Write the host in its ASCII form (xn--…), as URLs in the documents must be."})
    if value and not validate_rfc3986(value, rule="URI"):
        raise ValidationError({name: "Write the URL as RFC 3986 has it: percent-encode spaces, braces, | and "
                                     "any % that does not start an escape such as %20."})


# Ten years: a longer session would overflow the database's dates.
MAX_SESSION_TTL_SECONDS = 10 * 365 * 24 * 3600

HTTP_METHODS = [(m, m) for m in ("GET", "POST", "PUT", "PATCH", "DELETE")]


class SingletonModel(models.Model):
    """A table with exactly one row (pk=1), created with defaults on first use."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        self.pk = 1
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValidationError(f"{self._meta.verbose_name} cannot be deleted.")

    @classmethod
    def load(cls):
        obj, _ = cls.objects.get_or_create(pk=1)
        return obj


class SiteProfile(SingletonModel):
    name = models.CharField(max_length=200, default="My shop")
    url = models.URLField(
        blank=True,
        help_text="Canonical site URL with scheme. Leave empty to use the origin each request "
        "arrives on (handy for a demo reachable under several names).",
    )
    description = models.CharField(max_length=300, blank=True)
    contact = models.CharField(max_length=320, blank=True, help_text="Contact email or URL.")
    docs_url = models.URLField(blank=True, verbose_name="docs URL")
    agent_notes = models.TextField(
        blank=True, max_length=AGENT_NOTES_MAX_LENGTH,
        help_text="Markdown for agents, published in llms.txt after the limits: e.g. test data or scenarios "
        "a demo offers. Bold labels and lists, no headings (# …): llms.txt keeps headings for its links.",
    )

    class Meta:
        verbose_name = "site profile"

    def __str__(self):
        return self.name

    def clean(self):
        refuse_nul(self, "name", "url", "description", "contact", "docs_url", "agent_notes")
        if self.url and self.url.endswith("/"):
            self.url = self.url.rstrip("/")
        self._check_origin_url()
        refuse_unpublishable_url(self, "docs_url")
        if len(self.agent_notes) > AGENT_NOTES_MAX_LENGTH:
            raise ValidationError({"agent_notes": f"At most {AGENT_NOTES_MAX_LENGTH} characters."})
        if self.contact and not param_rules.is_email_or_url(self.contact):
            raise ValidationError({"contact": "Enter an email address or an http(s) URL."})
        if any(c in value for value in (self.name, self.description) for c in "\r\n"):
            raise ValidationError("Name and description must be one line each (agents.txt is line based).")
        if any(line.lstrip().startswith("#") for line in self.agent_notes.splitlines()):
            raise ValidationError({"agent_notes": "Use bold labels instead of headings (lines starting with #)."})

    def _check_origin_url(self):
        """The site URL is an origin: every published URL is it followed by a path."""
        if not self.url:
            return
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or parts.path or parts.query or parts.fragment:
            raise ValidationError({"url": "Enter the site's origin only, such as https://shop.example "
                                          "(http or https, no path, query or fragment)."})
        refuse_unpublishable_url(self, "url")


class SessionConfig(SingletonModel):
    create_endpoint = models.CharField(
        max_length=200, default="/.well-known/agents/api/session", validators=[ENDPOINT_PATH, ENDPOINT_TEMPLATE],
        help_text="POST here creates a session.",
    )
    delete_endpoint = models.CharField(
        max_length=200, default="/.well-known/agents/api/session", validators=[ENDPOINT_PATH, ENDPOINT_TEMPLATE],
        help_text="DELETE here ends a session.",
    )
    ttl_seconds = models.PositiveIntegerField(
        default=1800, validators=[MinValueValidator(60), MaxValueValidator(MAX_SESSION_TTL_SECONDS)],
        help_text="Hard lifetime from creation, never extended by activity. At least 60, at most ten years.",
    )

    class Meta:
        verbose_name = "session settings"
        verbose_name_plural = "session settings"

    def __str__(self):
        return f"Sessions ({self.ttl_seconds}s)"

    def routes(self):
        return {(self.create_endpoint, "POST"), (self.delete_endpoint, "DELETE")}

    def clean(self):
        taken = sorted({capability.name for endpoint, method in self.routes()
                        for capability in Capability.objects.filter(method=method)
                        if takes_paths_of(endpoint, capability.endpoint)})
        if taken:
            raise ValidationError(f"Capability {', '.join(taken)} already uses this endpoint and method.")


class RateLimitConfig(SingletonModel):
    requests_per_minute = models.PositiveIntegerField(default=60, validators=[MinValueValidator(1)])
    max_sessions = models.PositiveIntegerField(
        default=20, validators=[MinValueValidator(1)],
        help_text="Concurrent live sessions allowed per client address; at the limit, a new session ends the "
                  "one idle longest if it made no call for 5 minutes (SESSION_IDLE_SECONDS).",
    )

    class Meta:
        verbose_name = "rate limit"
        verbose_name_plural = "rate limit"

    def __str__(self):
        return f"{self.requests_per_minute}/minute, {self.max_sessions} sessions"


class AuditConfig(SingletonModel):
    enabled = models.BooleanField(default=False)
    endpoint = models.CharField(
        max_length=200, default="/.well-known/agents/api/audit/:session_id",
        validators=[ENDPOINT_PATH, ENDPOINT_TEMPLATE],
        help_text="GET here returns a sealed session's artifact; keep the :session_id placeholder.",
    )

    class Meta:
        verbose_name = "audit settings"
        verbose_name_plural = "audit settings"

    def __str__(self):
        return "Audit on" if self.enabled else "Audit off"

    def clean(self):
        if ":session_id" not in self.endpoint.split("/"):
            raise ValidationError({"endpoint": "The endpoint must contain a :session_id segment."})
        # The router tries the audit endpoint before any capability.
        for capability in Capability.objects.filter(method="GET"):
            if takes_paths_of(self.endpoint, capability.endpoint):
                raise ValidationError({"endpoint": f"This would answer GET on {capability.name}'s path "
                                                   f"({capability.endpoint})."})


class McpConfig(SingletonModel):
    """The MCP server (transports/mcp.py): on or off, and at which of two paths.

    The path is a choice, not free text: the middleware recognises both paths without reading
    the configuration, so every other path of the site still runs no query of the app.
    """

    enabled = models.BooleanField(default=True, help_text="Serve the capabilities as MCP tools.")
    endpoint = models.CharField(
        max_length=40, default=MCP_ENDPOINTS[0], choices=[(path, path) for path in MCP_ENDPOINTS],
        help_text="Where MCP clients connect (Streamable HTTP).",
    )

    class Meta:
        verbose_name = "MCP settings"
        verbose_name_plural = "MCP settings"

    def __str__(self):
        return f"MCP at {self.endpoint}" if self.enabled else "MCP off"


class Capability(models.Model):
    name = models.CharField(max_length=100, unique=True, validators=[CAPABILITY_NAME])
    description = models.CharField(max_length=500, blank=True)
    endpoint = models.CharField(max_length=200, validators=[ENDPOINT_PATH, ENDPOINT_TEMPLATE])
    method = models.CharField(max_length=6, choices=HTTP_METHODS, default="GET")
    requires_session = models.BooleanField(default=False)
    human_handoff = models.BooleanField(
        default=False, help_text="Returns a URL for a human to complete the action."
    )
    enabled = models.BooleanField(default=True)
    calls_per_hour = models.PositiveIntegerField(
        null=True, blank=True, validators=[MinValueValidator(1)],
        help_text="At most this many calls an hour from one client address, with or without a session, on top "
        "of the site's rate limit: e.g. for contact, which sends the shop an email. Empty: the site's limit only.",
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]
        verbose_name_plural = "capabilities"
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "method"],
                name="capability_unique_route",
                violation_error_message="Another capability already uses this endpoint and method.",
            )
        ]

    def __str__(self):
        return self.name

    def clean(self):
        refuse_nul(self, "description")
        if self.name in CALL_NAMES:
            raise ValidationError({"name": f"{self.name} names the session and audit endpoints' calls; choose another."})
        if self.pk and self.method == "GET" and self.params.filter(type="object").exists():
            raise ValidationError({"method": OBJECT_IN_QUERY})
        if not self.enabled and self.pk:
            self._check_can_be_disabled()
        self._check_not_taken_by_the_session_or_audit_endpoints()
        same_method = list(Capability.objects.filter(method=self.method).exclude(pk=self.pk))
        self._check_path_shape_is_free(same_method)
        if self.enabled:
            self._check_reachable([other for other in same_method if other.enabled])

    def _check_reachable(self, enabled_others):
        """The router answers a path with the first route of the method in position order: a literal
        path that an earlier template with :names matches would never be reached."""
        order = (self.position, self.name)
        for other in enabled_others:
            if (other.position, other.name) < order and hides(other.endpoint, self.endpoint):
                raise ValidationError({"position": f"{other.name} ({other.endpoint}) comes first and answers this "
                                                   "path: give this capability a lower position."})
            if order < (other.position, other.name) and hides(self.endpoint, other.endpoint):
                raise ValidationError({"position": f"This would answer {other.name}'s path ({other.endpoint}) before "
                                                   "it: give this capability a higher position."})

    def _check_not_taken_by_the_session_or_audit_endpoints(self):
        """The router tries them before any capability: one of their templates would answer this path."""
        for endpoint, method in SessionConfig.load().routes():
            if method == self.method and takes_paths_of(endpoint, self.endpoint):
                raise ValidationError({"endpoint": "This endpoint and method are used by the session API."})
        if self.method == "GET" and takes_paths_of(AuditConfig.load().endpoint, self.endpoint):
            raise ValidationError({"endpoint": "The audit endpoint answers GET on this path."})

    def _check_path_shape_is_free(self, others):
        """Two templates that differ only in their :names match the same paths: the second would
        never be reached. (The same template twice is the unique route constraint's to report.)"""
        shape = path_shape(self.endpoint)
        for other in others:
            if other.endpoint != self.endpoint and path_shape(other.endpoint) == shape:
                raise ValidationError({"endpoint": f"{other.name} already answers {self.method} on this path "
                                                   f"({other.endpoint})."})

    def _check_can_be_disabled(self):
        flows = sorted(
            Flow.objects.filter(steps__capability_id=self.pk).values_list("name", flat=True).distinct()
        )
        if flows:
            raise ValidationError(
                {"enabled": f"Flow {', '.join(flows)} uses this capability; remove it from the flow first."}
            )
        if not Capability.objects.filter(enabled=True).exclude(pk=self.pk).exists():
            raise ValidationError({"enabled": "agents.json needs at least one enabled capability."})


class CapabilityParam(models.Model):
    capability = models.ForeignKey(Capability, on_delete=models.CASCADE, related_name="params")
    name = models.CharField(max_length=100, validators=[PARAM_NAME])
    type = models.CharField(max_length=10, choices=[(t, t) for t in param_rules.TYPES], default="string")
    description = models.CharField(max_length=500, blank=True)
    required = models.BooleanField(default=False)
    default = models.JSONField(null=True, blank=True, help_text="JSON value, e.g. 20 or \"newest\".")
    enum = models.JSONField(null=True, blank=True, help_text='JSON list of allowed values, e.g. ["a", "b"].')
    items = models.JSONField(null=True, blank=True, help_text="JSON object describing array items.")
    minimum = models.FloatField(null=True, blank=True, help_text="Smallest value accepted (integer, number).")
    maximum = models.FloatField(null=True, blank=True, help_text="Largest value accepted (integer, number).")
    min_length = models.PositiveIntegerField(
        null=True, blank=True, verbose_name="min length",
        help_text="Fewest characters (string). Set, the text is trimmed of surrounding whitespace first.",
    )
    max_length = models.PositiveIntegerField(
        null=True, blank=True, verbose_name="max length", help_text="Most characters accepted (string).",
    )
    format = models.CharField(
        # db_default: rows written by older migrations' historical models, which lack the column, get "".
        max_length=20, blank=True, default="", db_default="",
        choices=[("", "any")] + [(f, f) for f in param_rules.FORMATS],
        help_text="What the text must be (string); email follows Django's validate_email.",
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]
        verbose_name = "parameter"
        constraints = [
            models.UniqueConstraint(
                fields=["capability", "name"],
                name="param_unique_name",
                violation_error_message="This capability already has a parameter with this name.",
            )
        ]

    def __str__(self):
        return self.name

    def clean(self):
        refuse_nul(self, "description")
        errors = param_rules.descriptor_errors(
            self.type, self.default, self.enum, self.items,
            minimum=self.minimum, maximum=self.maximum,
            min_length=self.min_length, max_length=self.max_length, format=self.format,
        )
        if self.type == "object" and self.capability_id and self.capability.method == "GET":
            errors.setdefault("type", OBJECT_IN_QUERY)
        if self.capability_id:
            for field, problem in param_rules.paging_errors(self.capability.name, self.name, self.type,
                                                            self.minimum).items():
                errors.setdefault(field, problem)
        if errors:
            raise ValidationError(errors)


class Flow(models.Model):
    name = models.CharField(max_length=100, unique=True, validators=[FLOW_NAME])
    description = models.CharField(max_length=500, blank=True)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]

    def __str__(self):
        return self.name

    def clean(self):
        refuse_nul(self, "description")
        if "\n" in self.description or "\r" in self.description:
            raise ValidationError({"description": "The description must be one line (agents.txt is line based)."})


class FlowStep(models.Model):
    flow = models.ForeignKey(Flow, on_delete=models.CASCADE, related_name="steps")
    capability = models.ForeignKey(Capability, on_delete=models.PROTECT, related_name="flow_steps")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self):
        return f"{self.flow} step {self.position}: {self.capability}"

    def clean(self):
        if self.capability_id and not self.capability.enabled:
            raise ValidationError({"capability": f"{self.capability.name} is disabled; enable it first."})


class ConfigRevision(SingletonModel):
    """Bumped on every configuration change; documents and routes are cached per number."""

    number = models.PositiveBigIntegerField(default=0)
    changed_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "configuration revision"


class AgentSession(models.Model):
    """One agent's session. The bearer token is kept only as its SHA-256 hash."""

    public_id = models.CharField(max_length=40, unique=True)
    token_hash = models.CharField(max_length=64, unique=True)
    # The secret of the session's inspect_url (inspector/), another than the token, kept as its SHA-256.
    inspect_hash = models.CharField(max_length=64, blank=True, db_index=True)
    client_address = models.GenericIPAddressField(unpack_ipv4=True)
    # What max_sessions counts by, as the rate limit does: the address, an IPv6 one by its /64.
    client_network = models.CharField(max_length=64, blank=True, editable=False)
    agent_name = models.CharField(max_length=200, blank=True)
    agent_version = models.CharField(max_length=100, blank=True)
    purpose = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)
    end_reason = models.CharField(max_length=20, blank=True)
    audited = models.BooleanField(default=False, help_text="Audit was on when the session was created.")
    # Head of the audit chain, moved under this row's lock so parallel requests never fork it.
    event_count = models.PositiveIntegerField(default=0)
    last_event_hash = models.CharField(max_length=64, blank=True)
    # The head event's timestamp: the next is never earlier, whichever host's clock makes it.
    last_event_at = models.CharField(max_length=32, blank=True)
    # When the session last made a call, to the minute (http/sessions.py touch): an address at its
    # max_sessions ends its oldest idle session to make room for a new one.
    last_call_at = models.DateTimeField(null=True, blank=True)
    # The cart as the agent was last shown it (core/cart_notices.py): the next cart answer and
    # checkout tell the agent what changed since (a price, a line the shop removed).
    shown_cart = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["client_network", "expires_at"])]

    def __str__(self):
        return self.public_id

    def save(self, *args, **kwargs):
        if not self.client_network:
            self.client_network = address_network(self.client_address)
        super().save(*args, **kwargs)


class CheckoutHandoff(models.Model):
    """A checkout handed to a human before the shop has an order (core/handoffs.py).

    The provider's checkout returned the shop's `reference` (a basket, a draft) instead of an
    order number; the agent holds `order_id` from then on, and the shop names the order the
    handoff became with resolve_handoff(), after which order.status answers from that order.
    """

    session = models.ForeignKey(AgentSession, on_delete=models.CASCADE, related_name="handoffs")
    order_id = models.CharField(max_length=40, unique=True, help_text="What the agent was given: ord_…")
    reference = models.CharField(max_length=200, db_index=True, help_text="The shop's reference of the handoff.")
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(null=True, blank=True)
    order_number = models.CharField(max_length=200, blank=True, help_text="The shop's order, once resolved.")
    resolved_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.order_id


class AuditEvent(models.Model):
    """One step of a session's hash chain (see audit/hashing.py for the fields' meaning).

    Every audited call inserts one, so the table keeps only the indexes it needs: the
    (session, seq) constraint's, which also serves every lookup by session, and event_id's.
    """

    id = RowIdField(primary_key=True)
    session = models.ForeignKey(AgentSession, on_delete=models.CASCADE, related_name="audit_events", db_index=False)
    seq = models.PositiveIntegerField()
    event_id = models.CharField(max_length=40, unique=True)
    timestamp = models.CharField(max_length=32)
    capability = models.CharField(max_length=100)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    params = models.JSONField(default=dict)
    response_status = models.PositiveSmallIntegerField()
    policy_result = models.CharField(max_length=100)
    prev_hash = models.CharField(max_length=64, blank=True)
    event_hash = models.CharField(max_length=64)
    # What a refused call was told (the envelope's `error`), for the session inspector: not part of
    # the hashed event, so not in the artifact.
    hint = models.TextField(blank=True, default="", db_default="")

    class Meta:
        ordering = ["session", "seq"]
        constraints = [models.UniqueConstraint(fields=["session", "seq"], name="audit_event_unique_seq")]

    def __str__(self):
        return f"{self.session_id} #{self.seq} {self.capability}"


class AuditArtifact(models.Model):
    """The signed artifact of an ended session, frozen when it was sealed."""

    session = models.OneToOneField(AgentSession, on_delete=models.CASCADE, related_name="audit_artifact")
    body = models.JSONField()
    sealed_at = models.DateTimeField()

    class Meta:
        ordering = ["-sealed_at"]

    def __str__(self):
        return f"Artifact of {self.session_id}"


class SigningKey(models.Model):
    """Public halves of every audit signing key used, so old artifacts keep verifying."""

    key_id = models.CharField(max_length=40, unique=True)
    public_key = models.CharField(max_length=100, help_text="Base64 DER SubjectPublicKeyInfo.")
    created_at = models.DateTimeField(auto_now_add=True)
    retired_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return self.key_id


class IdempotencyRecord(models.Model):
    """One Idempotency-Key of one scope (a session or a client address) and the answer it got.

    Neither the key nor the answer is readable from the row alone: the key is kept as a hash
    with its scope, the answer sealed with a key derived from it (see idempotency.py).
    """

    key_hash = models.CharField(max_length=64, unique=True)
    fingerprint = models.CharField(max_length=64, help_text="SHA-256 of the request's method, path and body.")
    response_status = models.PositiveSmallIntegerField(null=True, blank=True, help_text="Empty while in flight.")
    response_body = models.BinaryField(null=True, blank=True)
    created_at = models.DateTimeField()
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self):
        return self.key_hash[:12]


class AgentCall(models.Model):
    """`calls` calls of the agent pipeline that the activity page cannot tell apart, any transport,
    refused ones included: what the page counts (activity/report.py sums `calls`). Written in
    batches (activity/recorder.py), one row per group of a batch's calls of the same day,
    capability, session, agent, status, code and latency bucket; `at` and `duration_us` are those
    of the group's first call.

    No parameters, token, address or answer: a call is its capability, its session and agent,
    its outcome and its duration. `session_pk` is not a foreign key: rows outlive sessions, and a
    sessionless call (search needs none) has none. `day` is the call's date in TIME_ZONE and
    `latency_bucket` its duration on a log scale (activity/histogram.py), so the page groups by
    plain columns; each index covers the queries of one part of the page.
    """

    id = RowIdField(primary_key=True)
    at = models.DateTimeField()
    day = models.DateField()
    capability = models.CharField(max_length=100, help_text="Empty when the call named no capability (404).")
    session_pk = models.BigIntegerField(null=True)
    agent_name = models.CharField(max_length=200)
    agent_version = models.CharField(max_length=100)
    status = models.PositiveSmallIntegerField()
    code = models.CharField(max_length=50, help_text="The refusal's code; empty when the call succeeded.")
    duration_us = models.PositiveIntegerField()
    latency_bucket = models.PositiveSmallIntegerField()
    calls = models.PositiveIntegerField(default=1)

    class Meta:
        verbose_name = "agent call"
        verbose_name_plural = "agent activity"
        default_permissions = ()
        permissions = [("view_agent_activity", "Can view the agent activity page")]
        indexes = [
            # `calls` last in each: the page's sums read it from the index, whose order the groups follow.
            models.Index(fields=["day", "capability", "code", "latency_bucket", "calls"],
                         name="agentcall_day_capability"),
            models.Index(fields=["day", "agent_name", "agent_version", "code", "capability", "latency_bucket", "calls"],
                         name="agentcall_day_agent"),
            models.Index(fields=["capability", "code", "session_pk", "day", "agent_name", "calls"],
                         name="agentcall_funnel"),
        ]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.capability or '-'} {self.status}"
