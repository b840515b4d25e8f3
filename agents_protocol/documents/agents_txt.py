"""agents.txt, field by field as seed 002 specifies."""

AGENTS_JSON_PATH = "/.well-known/agents.json"


def build_agents_txt(config, origin):
    url = config.site.url or origin
    lines = [f"# agents.txt - {config.site.name}", f"# {url}", ""]
    lines += [f"Site: {config.site.name}", f"URL: {url}"]
    if config.site.description:
        lines.append(f"Description: {config.site.description}")
    if config.site.contact:
        lines.append(f"Contact: {config.site.contact}")
    lines += ["", f"Agents-JSON: {url}{AGENTS_JSON_PATH}", "", "# Capabilities"]
    lines += [f"Allow: {c.name}" for c in config.enabled_capabilities]
    if config.flows:
        lines += ["", "# Suggested Flows"]
        for flow in config.flows:
            lines.append(f"Flow: {flow.name} → {', '.join(flow.steps)}")
            if flow.description:
                lines.append(f"Flow-Description: {flow.description}")
    lines += [
        "",
        f"Rate-Limit: {config.rate_limit.requests_per_minute}/minute",
        f"Session-TTL: {config.session.ttl_seconds}s",
        f"Audit: {'true' if config.audit.enabled else 'false'}",
    ]
    if config.audit.enabled:
        lines.append(f"Audit-Endpoint: {url}{config.audit.endpoint}")
    return "\n".join(lines) + "\n"
