// The session inspector: polls the page's state URL for new calls while the session is live,
// then verifies its sealed trail in the browser (RFC 8785 JSON, SHA-256 and Ed25519 through
// WebCrypto) against the public key agents.json publishes. Everything an agent sent is shown with
// textContent, never parsed as HTML.
"use strict";

(function () {
  const root = document.getElementById("inspector");
  const FORMAT = "agents-protocol-audit/1";
  // What audit/verification.py checks too (ARTIFACT_FIELDS): the page runs the same checks.
  const ARTIFACT_FIELDS = ["format", "session_id", "events", "root_hash", "algorithm", "canonicalization", "key_id",
    "public_key", "signature"];
  const EVENT_FIELDS = ["seq", "event_id", "timestamp", "capability", "method", "path", "params",
    "response_status", "policy_result", "prev_hash"];
  let lastSeq = 0;
  let callCount = 0;

  function byId(id) {
    return document.getElementById(id);
  }

  function element(tag, text, className) {
    const made = document.createElement(tag);
    if (text !== undefined && text !== null) made.textContent = String(text);
    if (className) made.className = className;
    return made;
  }

  function replaceContent(target, ...children) {
    target.replaceChildren(...children);
  }

  // ---- polling ----------------------------------------------------------------------------

  // Once the session ended, an order its human may still pay is followed at a slower pace.
  const ORDER_FOLLOW_FACTOR = 3;
  const LONGEST_WAIT_MS = 30000;
  let failures = 0;

  async function poll() {
    const every = Number(root.dataset.pollMs);
    let wait = every;
    try {
      const response = await fetch(`${root.dataset.stateUrl}?after=${lastSeq}`,
        {cache: "no-store", credentials: "omit"});
      const body = await jsonOf(response);
      if (response.status === 404) {  // pruned while the page was open: nothing more will come
        byId("connection").textContent = body.error || "This session is no longer kept.";
        return;
      }
      if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
      failures = 0;
      byId("connection").textContent = "";
      if (!render(body.data)) {
        if (!awaitsItsHuman(body.data.orders)) return;
        wait = every * ORDER_FOLLOW_FACTOR;
      }
    } catch (error) {
      failures += 1;
      wait = Math.min(LONGEST_WAIT_MS, every * 2 ** failures);
      byId("connection").textContent = `Could not refresh (${error.message}); retrying in ${Math.ceil(wait / 1000)} s.`;
    }
    window.setTimeout(poll, wait);
  }

  async function jsonOf(response) {
    const type = response.headers.get("Content-Type") || "";
    return type.startsWith("application/json") ? response.json() : {};
  }

  function awaitsItsHuman(orders) {
    const listed = orders && orders.data && orders.data.orders;
    return Array.isArray(listed) && listed.some((order) => order.status === "pending");
  }

  function render(state) {
    renderSession(state.session);
    renderCalls(state.calls);
    renderRateLimit(state.rate_limit, state.session.live);
    renderCart(state.cart);
    renderOrders(state.orders);
    if (!state.session.live) byId("trail").hidden = !state.session.audited;
    return state.session.live;
  }

  function renderSession(session) {
    const status = byId("session-status");
    status.textContent = session.live ? "live" : `ended (${session.end_reason})`;
    status.className = session.live ? "badge live" : "badge ended";
    byId("session-times").textContent = session.live
      ? `created ${session.created_at}, expires ${session.expires_at}`
      : `created ${session.created_at}, ended ${session.ended_at}`;
  }

  function renderCalls(calls) {
    const body = byId("calls").tBodies[0];
    for (const call of calls) {
      const row = document.createElement("tr");
      row.dataset.seq = call.seq;
      row.dataset.capability = call.capability;
      if (call.error_code) row.className = "refused";
      row.append(
        element("td", call.seq),
        element("td", call.timestamp.replace("T", " ").replace("Z", "")),
        element("td", call.capability, "capability"),
        element("td", `${call.method} ${call.path}`.trim()),
        element("td", JSON.stringify(call.params, null, 1), "params"),
        element("td", call.status, "status"),
        element("td", call.error_code || "", "code"),
        element("td", call.hint || "", "hint"),
      );
      body.append(row);
      lastSeq = Math.max(lastSeq, call.seq);
      callCount += 1;
    }
    byId("call-count").textContent = `(${callCount})`;
  }

  function renderRateLimit(usage, live) {
    const target = byId("rate-limit");
    if (!live) {
      target.textContent = "The session has ended.";
    } else if (!usage) {
      target.textContent = "Not counted on this site.";
    } else {
      const reset = new Date(usage.reset_at * 1000).toISOString().slice(11, 19);
      target.textContent = `${usage.remaining} of ${usage.limit} calls left this minute (resets ${reset} UTC).`;
    }
  }

  function unavailable(answer) {
    return element("p", `Not available: ${answer.unavailable} (${answer.code})`, "note");
  }

  function renderCart(answer) {
    const target = byId("cart");
    if (!answer.data) return replaceContent(target, unavailable(answer));
    const cart = answer.data;
    const items = cart.items || [];
    if (!items.length) return replaceContent(target, element("p", "Empty."));
    const list = element("ul");
    for (const item of items) {
      const price = ` · ${money(item.line_total, item.currency || cart.currency, answer.decimals)}`;
      list.append(element("li", `${item.quantity} × ${item.name} (${item.item_id})${price}`));
    }
    replaceContent(target, list, element("p", `Subtotal: ${money(cart.subtotal, cart.currency, answer.decimals)}`));
  }

  // An amount with its currency's decimals, as the API wrote it (JSON.parse makes 40.00 a 40).
  function money(amount, currency, decimals) {
    const places = decimals && currency in decimals ? decimals[currency] : 2;
    return `${Number(amount).toFixed(places)} ${currency || ""}`.trim();
  }

  function renderOrders(answer) {
    const target = byId("orders");
    if (!answer.data) return replaceContent(target, unavailable(answer));
    const orders = answer.data.orders || [answer.data];
    if (!orders.length) return replaceContent(target, element("p", "No checkout yet."));
    const list = element("ul");
    for (const order of orders) {
      const parts = [`${order.order_id}: ${order.status}`];
      if (order.subtotal !== undefined) parts.push(money(order.subtotal, order.currency, answer.decimals));
      if (order.confirmed_at) parts.push(`confirmed ${order.confirmed_at}`);
      else if (order.expires_at) parts.push(`link expires ${order.expires_at}`);
      list.append(element("li", parts.join(" · ")));
    }
    replaceContent(target, list);
  }

  // ---- verification -----------------------------------------------------------------------

  // RFC 8785: object members sorted by their UTF-16 code units, strings and numbers written as
  // ECMAScript's JSON.stringify writes them (which the RFC adopts), no whitespace.
  function canonical(value) {
    if (value === null || typeof value !== "object") return JSON.stringify(value);
    if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
    const members = Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`);
    return `{${members.join(",")}}`;
  }

  async function sha256Hex(text) {
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
  }

  function base64Bytes(text) {
    return Uint8Array.from(atob(text), (character) => character.charCodeAt(0));
  }

  class Failed extends Error {}

  async function verify(artifact, publishedKey) {
    const passed = [];
    const check = (name, condition, failure) => {
      if (!condition) throw new Failed(`${name}: ${failure}`);
      passed.push(name);
    };
    try {
      check("shape", artifact && ARTIFACT_FIELDS.every((field) => field in artifact) && Array.isArray(artifact.events)
        && artifact.events.length > 0, `an artifact needs the fields ${ARTIFACT_FIELDS.join(", ")} and events`);
      check("format", artifact.format === FORMAT, `format must be ${FORMAT}`);
      check("algorithm", artifact.algorithm === "Ed25519" && artifact.canonicalization === "RFC8785",
        "algorithm must be Ed25519 over RFC8785 JSON");
      let previousHash = "";
      let previousTime = "";
      for (const [index, event] of artifact.events.entries()) {
        const where = `event ${index + 1}`;
        const content = Object.fromEntries(EVENT_FIELDS.map((field) => [field, event[field]]));
        check(`${where} seq`, event.seq === index + 1, `seq is ${event.seq}, expected ${index + 1} (missing or reordered events)`);
        check(`${where} hash`, await sha256Hex(canonical(content)) === event.event_hash,
          "its content does not match its event_hash (edited)");
        check(`${where} link`, event.prev_hash === previousHash, "prev_hash does not match the previous event_hash (chain broken)");
        check(`${where} time`, event.timestamp >= previousTime, "timestamp goes back in time");
        previousHash = event.event_hash;
        previousTime = event.timestamp;
      }
      const events = artifact.events;
      check("opening", events[0].capability === "session.create", "the first event must be session.create");
      check("closing", events[events.length - 1].capability === "session.end", "the last event must be session.end (truncated?)");
      const opening = events[0].params || {};
      const closing = events[events.length - 1].params || {};
      if ("session_id" in opening) {
        check("session", opening.session_id === artifact.session_id,
          "session_id is not the session its chain opened (relabelled?)");
      }
      if ("site" in opening) {
        check("site", opening.site === artifact.site, "site is not the site its chain opened on (relabelled?)");
      }
      if ("end_reason" in artifact && "reason" in closing) {
        check("end_reason", closing.reason === artifact.end_reason, "end_reason is not the reason the chain ended");
      }
      check("root_hash", await sha256Hex(events.map((event) => event.event_hash).join("")) === artifact.root_hash,
        "root_hash is not the sha256 of the concatenated event hashes");
      check("published key", artifact.public_key === publishedKey,
        "the artifact was not signed with the key agents.json publishes");
      const key = await crypto.subtle.importKey("spki", base64Bytes(publishedKey), {name: "Ed25519"}, false, ["verify"]);
      const valid = await crypto.subtle.verify({name: "Ed25519"}, key, base64Bytes(artifact.signature),
        new TextEncoder().encode(artifact.root_hash));
      check("signature", valid, "the Ed25519 signature of root_hash does not verify with the published key");
      return {ok: true, passed};
    } catch (error) {
      if (!(error instanceof Failed)) return {ok: false, passed, failure: `could not verify: ${error.message}`};
      return {ok: false, passed, failure: error.message};
    }
  }

  async function fetchJson(url) {
    const response = await fetch(url, {cache: "no-store", credentials: "omit"});
    if (!response.ok) throw new Error(`${url} answered ${response.status}`);
    return response.json();
  }

  async function verifyTrail() {
    const verdict = byId("verdict");
    verdict.className = "";
    verdict.textContent = "Verifying…";
    replaceContent(byId("checks"));
    let result;
    try {
      const [artifact, agentsJson] = await Promise.all(
        [fetchJson(root.dataset.artifactUrl), fetchJson(root.dataset.agentsJsonUrl)]);
      if (!window.crypto || !crypto.subtle) throw new Error("WebCrypto needs a secure context (HTTPS)");
      result = await verify(artifact, agentsJson.audit && agentsJson.audit.public_key);
    } catch (error) {
      result = {ok: false, passed: [], failure: `could not verify: ${error.message}`};
    }
    verdict.className = result.ok ? "valid" : "invalid";
    verdict.textContent = result.ok
      ? `Valid: ${result.passed.length} checks passed; the chain is intact and signed with the key agents.json publishes.`
      : `Invalid: ${result.failure}`;
    replaceContent(byId("checks"), ...checkLines(result.passed).map((line) => element("li", line)));
  }

  // Four checks per event would make thousands of lines: the events' checks are one line.
  function checkLines(passed) {
    const wholeEvents = passed.filter((name) => /^event \d+ time$/.test(name)).length;
    const lines = passed.filter((name) => !name.startsWith("event ")).map((name) => `${name} ✓`);
    if (wholeEvents) {
      lines.splice(lines.indexOf("algorithm ✓") + 1, 0, `events 1 to ${wholeEvents}: seq, hash, link, time ✓`);
    }
    return lines;
  }

  byId("verify").addEventListener("click", verifyTrail);
  poll();
})();
