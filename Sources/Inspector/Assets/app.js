"use strict";
(() => {
// ---- helpers ----------------------------------------------------------------------------
const $ = (selector) => document.querySelector(selector);
// The admin API's root: the page lives at <root>ui, wherever a proxy mounted the server.
const adminRoot = new URL(".", location.href);

/** Builds an element: h("td", {class: "x"}, "text", childNode). Strings become text nodes. */
function h(tag, attributes, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") element.className = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

function clock(iso) {
  const date = new Date(iso);
  const pad = (n, width = 2) => String(n).padStart(width, "0");
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

function bytes(count) {
  if (count < 1024) return `${count} bytes`;
  if (count < 1024 * 1024) return `${(count / 1024).toFixed(1)} KiB`;
  return `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

let noticeTimer = 0;
/** A message in the bar under the header, read out by screen readers; errors stay longer. */
function notify(message, isError = false) {
  const notice = $("#notice");
  notice.textContent = message;
  notice.classList.toggle("error", isError);
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { notice.textContent = ""; }, isError ? 10000 : 4000);
}

class ApiError extends Error {
  constructor(message, status, data) { super(message); this.status = status; this.data = data; }
}

// ---- the admin token --------------------------------------------------------------------
// Kept for this tab only (sessionStorage: this origin, this tab, gone when it closes), never in
// a cookie, which the browser would send to every port of the host. A server that made up its
// token prints the page's address with `#token=...`: the part after `#` never leaves the
// browser, and it is taken out of the address bar at once.
const tokenKey = "stubserver-admin-token";
let adminToken = sessionStorage.getItem(tokenKey) || "";
{
  const fromAddress = new URLSearchParams(location.hash.slice(1)).get("token");
  if (fromAddress) {
    adminToken = fromAddress;
    sessionStorage.setItem(tokenKey, adminToken);
    history.replaceState(null, "", location.pathname + location.search);
  }
}

function setToken(token) {
  adminToken = token;
  if (token) sessionStorage.setItem(tokenKey, token);
  else sessionStorage.removeItem(tokenKey);
}

/** The headers of every admin call: the token, and X-Stubserver-UI, which picks the native
 * admin API where a WireMock folder's would answer the same route. */
function adminHeaders() {
  const headers = { "X-Stubserver-UI": "1" };
  if (adminToken) headers["Authorization"] = `Bearer ${adminToken}`;
  return headers;
}

/** Calls the admin API with the token; a 401 shows the login. */
async function api(path, { method = "GET", body } = {}) {
  const headers = adminHeaders();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(new URL(path, adminRoot), {
    method, headers, credentials: "omit", cache: "no-store",
    body: body === undefined ? undefined : (typeof body === "string" ? body : JSON.stringify(body)),
  });
  const data = await response.json().catch(() => ({}));
  if (response.status === 401 && !path.startsWith("ui/")) showLogin();
  if (!response.ok) throw new ApiError(data.error || `${response.status} ${response.statusText}`, response.status, data);
  return data;
}

/**
 * Server-sent events over fetch, because EventSource cannot send the token. Behaves as
 * EventSource does (WHATWG HTML §9.2): events by type with `data` and `lastEventId`, `retry:`,
 * reconnection with Last-Event-ID after a dropped stream; a refusal (not 200) closes it for good.
 */
class EventStream extends EventTarget {
  static CONNECTING = 0;
  static OPEN = 1;
  static CLOSED = 2;

  constructor(url) {
    super();
    this.url = url;
    this.readyState = EventStream.CONNECTING;
    this.lastEventId = "";
    this.retry = 2000;
    this.controller = null;
    this.timer = 0;
    this.connect();
  }

  close() {
    this.readyState = EventStream.CLOSED;
    clearTimeout(this.timer);
    if (this.controller) this.controller.abort();
  }

  async connect() {
    this.controller = new AbortController();
    const headers = { ...adminHeaders(), Accept: "text/event-stream" };
    if (this.lastEventId) headers["Last-Event-ID"] = this.lastEventId;
    let response;
    try {
      response = await fetch(this.url, { headers, credentials: "omit", cache: "no-store", signal: this.controller.signal });
    } catch {
      return this.dropped();
    }
    if (this.readyState === EventStream.CLOSED) return;
    if (response.status !== 200) {
      this.readyState = EventStream.CLOSED;
      this.dispatchEvent(new Event("error"));
      return;
    }
    this.readyState = EventStream.OPEN;
    this.dispatchEvent(new Event("open"));
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let event = { type: "", data: [], id: null };
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
          const line = buffer.slice(0, end);
          buffer = buffer.slice(end + (buffer.startsWith("\r\n", end) ? 2 : 1));
          event = this.line(line, event);
        }
      }
    } catch {
      // aborted by close(), or the connection broke: dropped() decides
    }
    this.dropped();
  }

  /** One line of the stream; returns the event being built. */
  line(line, event) {
    if (line === "") {
      if (event.id !== null) this.lastEventId = event.id;
      if (event.data.length) {
        const message = new MessageEvent(event.type || "message", { data: event.data.join("\n"), lastEventId: this.lastEventId });
        this.dispatchEvent(message);
      }
      return { type: "", data: [], id: null };
    }
    if (line.startsWith(":")) return event;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") event.data.push(value);
    else if (field === "event") event.type = value;
    else if (field === "id" && !value.includes("\0")) event.id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.retry = Number(value);
    return event;
  }

  /** The stream ended or broke: reconnect after `retry`, unless it was closed. */
  dropped() {
    if (this.readyState === EventStream.CLOSED) return;
    this.readyState = EventStream.CONNECTING;
    this.dispatchEvent(new Event("error"));
    this.timer = setTimeout(() => this.connect(), this.retry);
  }
}

// ---- tabs -------------------------------------------------------------------------------
const tabs = () => [...document.querySelectorAll('[role="tab"]')];
const tabOpened = {}; // area name -> function called when its tab is shown

function showTab(tab, focus = false) {
  for (const other of tabs()) {
    const selected = other === tab;
    other.setAttribute("aria-selected", String(selected));
    other.tabIndex = selected ? 0 : -1;
    $("#" + other.getAttribute("aria-controls")).hidden = !selected;
  }
  if (focus) tab.focus();
  const area = tab.id.replace("tab-", "");
  if (tabOpened[area]) tabOpened[area]();
}

function currentArea() {
  const tab = tabs().find((t) => t.getAttribute("aria-selected") === "true");
  return tab ? tab.id.replace("tab-", "") : "";
}

// Arrow keys move between tabs (the WAI-ARIA tabs pattern); Tab goes on into the panel.
$("#tabs").addEventListener("keydown", (event) => {
  const all = tabs();
  const index = all.indexOf(document.activeElement);
  if (index < 0) return;
  const next = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: all.length - 1 }[event.key];
  if (next === undefined) return;
  event.preventDefault();
  showTab(all[(next + all.length) % all.length], true);
});
for (const tab of tabs()) tab.addEventListener("click", () => showTab(tab));

// ---- login ------------------------------------------------------------------------------
let started = false;

function showLogin() {
  $("#login").hidden = false;
  const areas = ["#tabs", "#actions", "#panel-requests", "#panel-stubs", "#panel-scenarios", "#panel-webhooks"];
  for (const id of areas) $(id).hidden = true;
  setConnection("logged out", "down");
  stopEvents();
  $("#token").focus();
}

$("#login-form").addEventListener("submit", async (event) => {
  event.preventDefault(); // never a native submission: the policy allows no form target
  $("#login-error").textContent = "";
  const previous = adminToken;
  setToken($("#token").value);
  let session = null;
  try {
    session = await api("ui/session");
  } catch (error) {
    $("#login-error").textContent = error.message;
  }
  if (session && session.authenticated) {
    $("#token").value = "";
    $("#login").hidden = true;
    start();
    return;
  }
  setToken(previous);
  if (session) $("#login-error").textContent = "that is not this server's admin token";
  $("#token").select();
});

$("#logout").addEventListener("click", () => {
  setToken("");
  started = false;
  showLogin();
});

function setConnection(text, kind) {
  const connection = $("#connection");
  connection.textContent = text;
  connection.className = "connection " + (kind || "");
}

/** Shows the areas and opens the event stream; runs once the session is known to be good. */
function start() {
  $("#login").hidden = true;
  $("#tabs").hidden = false;
  $("#actions").hidden = false;
  const tab = tabs().find((t) => t.getAttribute("aria-selected") === "true") || tabs()[0];
  showTab(tab);
  if (!started) {
    started = true;
    startEvents();
  }
}

let serverInfo = { journal: 0, tokenRequired: false };

async function boot() {
  try {
    serverInfo = await api("ui/session");
  } catch (error) {
    setConnection("cannot reach the server", "down");
    notify(error.message, true);
    return;
  }
  $("#logout").hidden = !serverInfo.tokenRequired;
  if (serverInfo.tokenRequired && !serverInfo.authenticated) showLogin();
  else start();
}
// ---- the request list -------------------------------------------------------------------
const keep = 1000; // rows kept (and at most in the page): a busy server cannot grow the page
const requests = {
  rows: [],          // entry summaries, oldest first, at most `keep`
  lastId: 0,         // the newest id received: a reconnection resumes after it
  received: 0,       // every entry received since the page opened (or the journal was cleared)
  missed: 0,         // entries the journal dropped before the page saw them (gap events)
  pending: [],       // received, not yet in the page
  frame: 0,          // a flush is scheduled
  lastBatch: 0,      // entries in the last flush: a busy server gets fewer, bigger flushes
  activeId: 0,       // the row the keyboard is on
  selectedId: 0,     // the row shown in the detail pane
  nodes: new Map(),  // id -> row element
};
const list = $("#request-list");
let events = null;
// Past this many entries a second no one can follow the list, and reading them all would take
// the browser's time (and, on a laptop, the app's and the server's). The page then takes a
// sample: it closes the stream and reconnects a second later with Last-Event-ID, getting what
// the journal still holds, and says so. Twice the 500 a second an app under test might make;
// at 5,000 the page's browser used a sixth of a two-core machine under a load test.
const liveLimit = 1000;
const rate = { windowStart: 0, count: 0, sampling: false, timer: 0 };

function startEvents() {
  stopEvents();
  // A new window: a sample ends only after a whole second under the limit.
  rate.windowStart = performance.now();
  rate.count = 0;
  if (!rate.sampling) setConnection("connecting…");
  // since=: the first connection gets what the journal holds; the browser's own reconnections
  // send Last-Event-ID, which the server prefers, so nothing is lost or repeated.
  events = new EventStream(new URL(`events?since=${requests.lastId}`, adminRoot));
  events.addEventListener("hello", (event) => {
    const hello = JSON.parse(event.data);
    if (hello.restarted) clearRequests("The server restarted: showing its new journal.");
    serverInfo.journal = hello.journal;
    if (!rate.sampling) setConnection(hello.journal > 0 ? "live" : "live (journal off: --journal 0)", "live");
  });
  events.addEventListener("message", receive);
  events.addEventListener("cleared", () => clearRequests("The journal was cleared."));
  events.addEventListener("webhook", receiveWebhook);
  events.addEventListener("stream", receiveStream);
  events.addEventListener("webhooks-cleared", clearWebhooks);
  events.addEventListener("gap", (event) => {
    const gap = JSON.parse(event.data);
    requests.missed += gap.through - gap.after;
    showCounts();
  });
  events.addEventListener("dropped", () => setConnection("catching up…"));
  events.addEventListener("error", (event) => {
    if (event.target !== events) return; // a stream this page already closed
    if (events.readyState === EventStream.CLOSED) {
      // Refused (a wrong token, too many streams): the stream does not retry by itself,
      // so ask why, then reconnect or show the login.
      setConnection("disconnected", "down");
      rate.timer = setTimeout(reconnect, 2000);
    } else {
      setConnection("reconnecting…", "down"); // the stream retries by itself
    }
  });
}

async function reconnect() {
  try {
    const session = await api("ui/session");
    if (session.tokenRequired && !session.authenticated) showLogin();
    else if (started) startEvents();
  } catch {
    rate.timer = setTimeout(reconnect, 2000); // the server is away: try again
  }
}

function stopEvents() {
  if (events) events.close();
  events = null;
  clearTimeout(rate.timer);
}

/** Counts arrivals per second; above `liveLimit`, switches to a sample a second. */
function countArrival() {
  const now = performance.now();
  if (now - rate.windowStart > 1000) {
    if (rate.sampling && rate.count <= liveLimit && events) {
      rate.sampling = false;
      setConnection("live", "live");
    }
    rate.windowStart = now;
    rate.count = 0;
  }
  if (++rate.count <= liveLimit || !events) return;
  rate.sampling = true;
  stopEvents();
  setConnection(`over ${liveLimit} requests a second: showing a sample each second`, "live");
  rate.timer = setTimeout(startEvents, 1000);
}

/**
 * One journal entry. Its id is the event's id, so the entry itself is parsed only if it will be
 * shown: a server far busier than anyone can read costs the page little.
 */
function receive(event) {
  const id = Number(event.lastEventId);
  if (id <= requests.lastId) return; // already here (never expected: ids are checked)
  requests.lastId = id;
  requests.received += 1;
  countArrival();
  requests.pending.push(event.data);
  // A hidden tab gets no animation frames: keep only what could be shown anyway.
  if (requests.pending.length > 2 * keep) requests.pending = requests.pending.slice(-keep);
  if (!requests.frame) {
    // After a big batch, four updates a second are all anyone can read: the rest of the
    // browser's time stays free (on a laptop that also runs the app and the server).
    requests.frame = setTimeout(() => requestAnimationFrame(flush), requests.lastBatch > 50 ? 250 : 0);
  }
}

/** Moves the pending entries into the list: one DOM update per frame, whatever the rate. */
function flush() {
  // Someone reading further down keeps their place while new rows arrive on top. Read before
  // the batch changes the list (layout is still clean), and the height only then: reading it
  // forces a layout of the whole list.
  const readingBelow = list.scrollTop > 0;
  requests.frame = 0;
  requests.lastBatch = requests.pending.length;
  const batch = requests.pending.slice(-keep).map((data) => JSON.parse(data));
  requests.pending = [];
  requests.rows.push(...batch);
  const excess = requests.rows.length - keep;
  if (excess > 0) for (const old of requests.rows.splice(0, excess)) removeRow(old.id);
  const fragment = document.createDocumentFragment();
  for (let i = batch.length - 1; i >= 0; i--) { // newest first
    if (matchesFilters(batch[i])) fragment.append(rowFor(batch[i]));
  }
  const before = readingBelow ? list.scrollHeight : 0;
  list.prepend(fragment);
  if (readingBelow) list.scrollTop += list.scrollHeight - before;
  if (!requests.activeId && list.firstElementChild) setActive(Number(list.firstElementChild.dataset.id), false);
  showCounts();
  if (currentArea() === "scenarios") refreshScenariosSoon();
}

function removeRow(id) {
  const node = requests.nodes.get(id);
  if (node) node.remove();
  requests.nodes.delete(id);
  streams.delete(id);
  if (requests.activeId === id) requests.activeId = 0;
}

function statusClass(entry) {
  if (entry.fault) return "fault";
  return entry.status === null ? "left" : "s" + String(entry.status).charAt(0);
}

/** A CONNECT through the forward proxy: intercepted here, or a blind tunnel. */
function tunnelText(tunnel) {
  return tunnel.mode === "intercept" ? "tunnel: intercepted (TLS ends here)" : "tunnel: blind";
}

/** The target as the client meant it: a request inside an intercepted tunnel names its host. */
function shownTarget(entry) {
  return entry.via ? entry.via + entry.target : entry.target;
}

function answeredBy(entry) {
  if (entry.tunnel) return tunnelText(entry.tunnel);
  if (entry.refused) return `refused: ${entry.refused}`;
  if (entry.proxy && !entry.stub) return `→ ${entry.proxy.upstream}`;
  return entry.stub ? entry.stub.name || entry.stub.id : "no match";
}

/** A regex match gave up on this request (a count in the list's events, a list in the detail's). */
function abortedBadge(entry) {
  const count = Array.isArray(entry.regexAborted) ? entry.regexAborted.length : entry.regexAborted || 0;
  if (!count) return null;
  return [" ", h("span", { class: "aborted", title: "a regular expression gave up: no answer within its budget" },
    count === 1 ? "regex aborted" : `${count} regexes aborted`)];
}

/** The request (or its forwarded answer) broke the OpenAPI document given with --openapi. */
function contractBadge(entry) {
  const count = entry.contract && typeof entry.contract === "object"
    ? (entry.contract.violations || []).length + (entry.contract.response || []).length : entry.contract || 0;
  if (!count) return null;
  return [" ", h("span", { class: "aborted", title: "the request broke the OpenAPI document (--openapi)" },
    count === 1 ? "1 contract violation" : `${count} contract violations`)];
}

/** Answered (by a stub, or by the upstream it was forwarded to, or refused as an admin
 * request) rather than a near miss. */
function wasAnswered(entry) {
  return Boolean(entry.stub || entry.proxy || entry.refused || entry.tunnel);
}

function timeTaken(entry) {
  const total = `${entry.durationMs < 10 ? entry.durationMs.toFixed(2) : Math.round(entry.durationMs)} ms`;
  return entry.delayMs ? `${total} (+${entry.delayMs} ms delay)` : total;
}

function rowFor(entry) {
  const row = h("div", { class: "row", role: "option", id: `request-${entry.id}`, "data-id": entry.id, "aria-selected": String(entry.id === requests.selectedId) },
    h("span", { class: "time" }, clock(entry.receivedAt)),
    h("span", { class: "method" }, entry.method),
    h("span", { class: "target", title: shownTarget(entry) }, shownTarget(entry)),
    h("span", { class: "status " + statusClass(entry) }, entry.fault ? entry.fault : entry.status === null ? "---" : entry.status),
    h("span", { class: entry.refused ? "refused" : entry.proxy || entry.tunnel ? "proxied" : entry.stub ? "stub" : "nomatch",
      title: entry.stub ? entry.stub.id : entry.proxy ? "forwarded" : entry.refused ? "an admin request the server refused" : "" },
      answeredBy(entry), abortedBadge(entry), contractBadge(entry), streamBadge(entry)),
    h("span", { class: "taken" }, timeTaken(entry)));
  requests.nodes.set(entry.id, row);
  return row;
}

function clearRequests(message) {
  requests.rows = [];
  requests.pending = [];
  requests.nodes.clear();
  streams.clear();
  requests.received = 0;
  requests.missed = 0;
  requests.activeId = 0;
  list.replaceChildren();
  if (message) notify(message);
  showCounts();
}

function showCounts() {
  const shown = list.childElementCount;
  let text = `${shown} shown · ${requests.rows.length} kept · ${requests.received} received`;
  if (requests.missed) text += ` · ${requests.missed} left the journal before this page saw them`;
  $("#counts").textContent = text;
  $("#list-empty").hidden = shown > 0;
  list.setAttribute("aria-activedescendant", requests.activeId ? `request-${requests.activeId}` : "");
}

// ---- filters ----------------------------------------------------------------------------
const filters = { method: "", status: "", match: "", text: "" };

function matchesFilters(entry) {
  if (filters.method && entry.method !== filters.method) return false;
  if (filters.status === "fault" ? !entry.fault : filters.status && String(entry.status)[0] !== filters.status) return false;
  if (filters.match === "matched" && !wasAnswered(entry)) return false;
  if (filters.match === "unmatched" && wasAnswered(entry)) return false;
  if (filters.text) {
    const haystack = `${entry.method} ${shownTarget(entry)} ${entry.status} ${answeredBy(entry)} ${entry.fault || ""}`.toLowerCase();
    if (!haystack.includes(filters.text)) return false;
  }
  return true;
}

/** Redraws the list from the kept rows (at most `keep`, so this stays quick). */
function redraw() {
  const fragment = document.createDocumentFragment();
  requests.nodes.clear();
  for (let i = requests.rows.length - 1; i >= 0; i--) {
    if (matchesFilters(requests.rows[i])) fragment.append(rowFor(requests.rows[i]));
  }
  list.replaceChildren(fragment);
  if (!requests.nodes.has(requests.activeId)) requests.activeId = list.firstElementChild ? Number(list.firstElementChild.dataset.id) : 0;
  setActive(requests.activeId, false);
  showCounts();
}

for (const [id, key] of [["#filter-method", "method"], ["#filter-status", "status"], ["#filter-match", "match"]]) {
  $(id).addEventListener("change", (event) => { filters[key] = event.target.value; redraw(); });
}
$("#filter-text").addEventListener("input", (event) => { filters.text = event.target.value.trim().toLowerCase(); redraw(); });

// ---- keyboard and mouse -----------------------------------------------------------------
function setActive(id, scroll = true) {
  const previous = requests.nodes.get(requests.activeId);
  if (previous) previous.classList.remove("active");
  requests.activeId = id;
  const node = requests.nodes.get(id);
  if (node) {
    node.classList.add("active");
    if (scroll) node.scrollIntoView({ block: "nearest" });
  }
  list.setAttribute("aria-activedescendant", node ? node.id : "");
}

function select(id) {
  const previous = requests.nodes.get(requests.selectedId);
  if (previous) previous.setAttribute("aria-selected", "false");
  requests.selectedId = id;
  const node = requests.nodes.get(id);
  if (node) node.setAttribute("aria-selected", "true");
  setActive(id);
  openEntry(id);
}

list.addEventListener("keydown", (event) => {
  const rows = [...list.children];
  if (!rows.length) return;
  const index = rows.findIndex((row) => Number(row.dataset.id) === requests.activeId);
  const moves = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: rows.length - 1, PageDown: index + 10, PageUp: index - 10 };
  if (event.key in moves) {
    event.preventDefault();
    const target = rows[Math.max(0, Math.min(rows.length - 1, moves[event.key]))];
    setActive(Number(target.dataset.id));
  } else if ((event.key === "Enter" || event.key === " ") && index >= 0) {
    event.preventDefault();
    select(requests.activeId);
  }
});

list.addEventListener("click", (event) => {
  const row = event.target.closest(".row");
  if (row) select(Number(row.dataset.id));
});

// Escape in the details goes back to the list, where the keyboard left off.
$("#detail").addEventListener("keydown", (event) => {
  if (event.key === "Escape") { event.preventDefault(); list.focus(); }
});
// ---- one request in full ----------------------------------------------------------------
const detail = $("#detail");

async function openEntry(id) {
  let entry;
  try {
    entry = await api(`requests/${id}`);
  } catch (error) {
    detail.replaceChildren(h("p", { class: "empty" }, error.status === 404
      ? `Request #${id} has left the journal (it keeps the last ${serverInfo.journal}).` : error.message));
    return;
  }
  if (requests.selectedId !== id) return; // another row was opened meanwhile
  renderEntry(entry);
}

function renderEntry(entry) {
  const answered = entry.tunnel
    ? [h("span", { class: "proxied" }, tunnelText(entry.tunnel))]
    : entry.refused
    ? [h("span", { class: "refused" }, `refused by the admin API's protection: ${entry.refused}`)]
    : entry.stub
    ? [h("span", {}, entry.stub.name || "(unnamed)"), " ", h("code", { class: "sub" }, entry.stub.id)]
    : entry.proxy ? [h("span", { class: "proxied" }, `forwarded to ${entry.proxy.upstream}`)]
    : [h("span", { class: "nomatch" }, "no stub matched")];
  if (entry.proxy) {
    const upstream = entry.proxy.error ? `failed: ${entry.proxy.error}`
      : `answered ${entry.proxy.status}${entry.proxy.ms !== undefined ? ` in ${entry.proxy.ms} ms` : ""}`;
    answered.push(" ", h("span", { class: "sub" }, `(upstream ${upstream})`));
  }
  const facts = [
    ["Received", `${new Date(entry.receivedAt).toLocaleString()} (#${entry.id})`],
    ["Status", entry.fault ? `none: the stub's fault "${entry.fault}" was sent instead of its ${entry.response ? entry.response.status : ""} response`
      : entry.abandoned ? `none: abandoned after ${Math.round(entry.durationMs)} ms (the client left, or the server stopped, before the ${entry.response ? entry.response.status : ""} answer was sent)`
      : entry.status === null ? "none: the client left before the answer" : String(entry.status)],
    ["Answered by", answered],
    ["Time taken", timeTaken(entry)],
  ];
  if (entry.tunnel) facts.push(["Tunnel", tunnelFacts(entry.tunnel)]);
  // One wrapper, so h() flattens the optional and nested parts (replaceChildren would not).
  detail.replaceChildren(h("div", {},
    h("h2", {}, `${entry.method} ${shownTarget(entry)}`),
    h("dl", { class: "facts" }, facts.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)])),
    entry.tunnel ? null : h("div", { class: "detail-actions" },
      h("button", { type: "button", id: "make-stub", onclick: () => openStubDialog(entry) }, "Make a stub from this")),
    wasAnswered(entry) ? null : nearMissReport(entry),
    abortedReport(entry),
    contractReport(entry),
    // A stream is what such an exchange is about: first, above the request that opened it.
    entry.stream && entry.stream.items ? streamSection(entry.stream) : null,
    h("h3", {}, "Request"),
    headerTable(entry.headers),
    bodyBlock(entry, headerValue(entry.headers, "Content-Type")),
    h("h3", {}, "Response"),
    entry.response ? [headerTable(entry.response.headers), bodyBlock(entry.response, headerValue(entry.response.headers, "Content-Type"))]
      : h("p", { class: "note" }, "The client left before the answer was ready.")));
}

// ---- streams: answers that go on (server-sent events, a WebSocket) ------------------------
// The list's events carry a stream's summary; `stream` events say that one changed (at most
// once per batch per stream, however fast it runs). The page keeps the latest summary per row
// and, for the stream open in the details, fetches the entry again: one request at a time, and
// one more if it changed meanwhile, so a busy stream costs the page a few fetches a second.
const streams = new Map(); // entry id -> the latest stream summary
const streamRefresh = { busy: false, again: false };

function streamBadge(entry) {
  const stream = streams.get(entry.id) || entry.stream;
  if (!stream) return null;
  const kind = stream.kind === "websocket" ? "WebSocket" : "events";
  const open = stream.ended === null;
  return [" ", h("span", { class: open ? "stream-badge live" : "stream-badge", title: open ? "open" : `ended: ${stream.ended}` },
    `${kind} · ${stream.count}${open ? " · live" : ""}`)];
}

function receiveStream(event) {
  const change = JSON.parse(event.data);
  streams.set(change.id, change.stream);
  const row = requests.nodes.get(change.id);
  const entry = requests.rows.find((r) => r.id === change.id);
  if (row && entry) {
    const fresh = rowFor(entry);
    if (row.classList.contains("active")) fresh.classList.add("active");
    row.replaceWith(fresh);
  }
  if (requests.selectedId === change.id) refreshStream(change.id);
}

async function refreshStream(id) {
  if (streamRefresh.busy) { streamRefresh.again = true; return; }
  streamRefresh.busy = true;
  try {
    const entry = await api(`requests/${id}`);
    const shown = detail.querySelector(".stream");
    if (requests.selectedId === id && shown && entry.stream && entry.stream.items) {
      const items = shown.querySelector(".stream-items");
      // Following the end (or not scrolled at all) keeps following it; a reader further up stays.
      const following = !items || items.scrollTop + items.clientHeight >= items.scrollHeight - 4;
      const section = streamSection(entry.stream);
      shown.replaceWith(section);
      const list = section.querySelector(".stream-items");
      list.scrollTop = following ? list.scrollHeight : items.scrollTop;
    }
  } catch {
    // The entry left the journal: its details say so when opened again.
  }
  streamRefresh.busy = false;
  if (streamRefresh.again) {
    streamRefresh.again = false;
    refreshStream(requests.selectedId);
  }
}

/** Each event sent, or message either way, with its time; unmatched messages with why. */
function streamSection(stream) {
  const websocket = stream.kind === "websocket";
  const items = stream.items.map((item) => h("li", { class: `stream-item ${item.direction}${item.nearMiss ? " unmatched" : ""}` },
    h("span", { class: "at" }, `+${item.atMs} ms`),
    h("span", { class: "direction" }, item.nearMiss ? "received, no rule matched" : item.direction),
    h("pre", { class: "text" }, item.text),
    item.nearMiss ? h("ul", { class: "stream-nearmiss" }, item.nearMiss.map((line) => h("li", { class: "mismatch" }, line))) : null));
  if (stream.omitted) {
    const at = stream.omittedAfter === undefined ? items.length : stream.omittedAfter;
    items.splice(at, 0, h("li", { class: "stream-omitted" },
      `… ${stream.omitted} more not kept: the journal keeps a stream's first 100 and latest 400 …`));
  }
  const state = stream.ended === null ? "open: live" : `ended: ${stream.ended}`;
  return h("section", { class: "stream", "aria-label": websocket ? "WebSocket messages" : "Events sent" },
    h("h3", {}, websocket ? "WebSocket messages" : "Events sent"),
    h("p", { class: "note stream-state" }, state),
    items.length ? h("ol", { class: "stream-items", tabindex: "0" }, items) : h("p", { class: "note" }, "Nothing yet."));
}

/** Where a tunnel went and how it went: blind ones show the bytes each way. */
function tunnelFacts(tunnel) {
  const parts = [`${tunnel.host}:${tunnel.port}`, tunnel.state];
  if (tunnel.mode === "relay" && tunnel.state !== "failed") {
    parts.push(`${tunnel.bytesFromClient} bytes sent, ${tunnel.bytesToClient} received`);
  }
  if (tunnel.durationMs !== undefined) parts.push(`open ${tunnel.durationMs} ms`);
  if (tunnel.error) parts.push(tunnel.error);
  return parts.join(", ");
}

/**
 * The 404's report, line for line: "No stub matched", then each closest stub and, for each
 * condition that failed, "condition: expected X, got Y" with X and Y highlighted.
 */
function nearMissReport(entry) {
  const closest = entry.nearMiss || [];
  const section = h("section", { class: "nearmiss", "aria-label": "Why no stub matched" },
    h("h3", {}, "Why no stub matched"),
    h("p", {}, `No stub matched ${entry.method} ${entry.target}`));
  if (!closest.length) {
    section.append(h("p", { class: "note" }, "No stub came close."));
    return section;
  }
  section.append(h("p", {}, "Closest stubs, and what differed:"), h("ol", {}, closest.map((candidate) => h("li", {},
    candidate.name === candidate.source ? h("span", {}, candidate.source)
      : [h("span", {}, `"${candidate.name}"`), " ", h("code", { class: "sub" }, `(${candidate.source})`)],
    h("ul", {}, candidate.mismatches.map((m) => h("li", { class: "mismatch" },
      `${m.condition}: expected `, h("mark", { class: "expected" }, m.expected),
      ", got ", h("mark", { class: "actual" }, m.actual),
      m.aborted ? [" (", h("span", { class: "aborted" }, `aborted: ${m.aborted}`), ")"] : null)))))));
  return section;
}

/**
 * Regex matches that gave up on this request (the backtracking engine's budget): each counted
 * as no match. Which stub, which condition, the pattern and why, as the journal has them.
 */
function abortedReport(entry) {
  const aborted = entry.regexAborted || [];
  if (!aborted.length) return null;
  return h("section", { class: "regex-aborted", "aria-label": "Regex matches that gave up" },
    h("h3", {}, "Regex matches that gave up"),
    h("p", { class: "note" }, "No answer within the budget: each counted as no match."),
    h("ul", {}, aborted.map((a) => h("li", { class: "aborted-match" },
      a.stub ? [h("span", {}, `"${a.stub.name || a.stub.id}"`), " "] : null,
      a.condition ? `${a.condition}: ` : "",
      h("code", {}, `/${a.pattern}/`), ` aborted: ${a.reason}`))));
}

/**
 * How the request, and a forwarded answer, broke the OpenAPI document (--openapi): each
 * violation where it is ("query.limit"), what is wrong, and the rule's place in the document.
 */
function contractReport(entry) {
  const contract = entry.contract;
  if (!contract) return null;
  const violations = (contract.violations || []).concat(contract.response || []);
  if (!violations.length) return null;
  return h("section", { class: "nearmiss", "aria-label": "OpenAPI contract violations" },
    h("h3", {}, "OpenAPI contract violations"),
    h("p", {}, contract.operation ? `Checked against ${contract.operation}:` : "No operation of the document fits:"),
    h("ul", {}, violations.map((v) => h("li", { class: "mismatch" },
      `${v.at}: `, h("mark", { class: "actual" }, v.message),
      v.rule ? [" ", h("code", { class: "sub" }, v.rule)] : null))));
}

function headerValue(headers, name) {
  const key = Object.keys(headers || {}).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? headers[key][0] : "";
}

function headerTable(headers) {
  const rows = Object.entries(headers || {}).flatMap(([name, values]) => values.map((value) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, value))));
  if (!rows.length) return h("p", { class: "note" }, "No headers.");
  return h("table", { class: "headers" }, h("tbody", {}, rows));
}

/** A body as text, pretty-printed when it is JSON; a binary one as its size and type. */
function bodyBlock(message, contentType) {
  const size = message.bodySize !== undefined ? message.bodySize : (message.body || "").length;
  if (message.bodyBase64 !== undefined) {
    return h("p", { class: "note" }, `Binary body: ${bytes(message.bodySize || Math.floor(message.bodyBase64.length * 3 / 4))}${contentType ? `, ${contentType}` : ""}.`);
  }
  if (!message.body) return h("p", { class: "note" }, "No body.");
  const cut = message.bodySize !== undefined && message.bodySize > message.body.length
    ? h("p", { class: "note" }, `The first ${bytes(message.body.length)} of ${bytes(size)} (the journal keeps no more).`) : null;
  return [h("pre", { class: "body" }, prettyJSON(message.body) ?? message.body), cut];
}

function prettyJSON(text) {
  const first = text.trimStart().charAt(0);
  if (first !== "{" && first !== "[") return null;
  try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return null; }
}
// ---- stubs ------------------------------------------------------------------------------
let stubs = [];

async function loadStubs() {
  try {
    stubs = (await api("stubs")).stubs;
    drawStubs();
  } catch (error) {
    notify(`Could not load the stubs: ${error.message}`, true);
  }
}

/**
 * A condition as a person writes it: `X-Client: ios-app`, `X-Client contains "ios"`,
 * `Authorization matches /Bearer .+/`, `X-Debug present`. A regular expression is shown as
 * written, not as escaped JSON.
 */
function matcherText(name, matcher, separator = ": ") {
  if (matcher === null || typeof matcher !== "object") return `${name}${separator}${matcher}`;
  const anyCase = matcher.caseInsensitive ? " (any case)" : "";
  if ("equals" in matcher) {
    const value = typeof matcher.equals === "string" ? matcher.equals : JSON.stringify(matcher.equals);
    return `${name}${separator}${value}${anyCase}`;
  }
  if ("contains" in matcher) return `${name} contains "${matcher.contains}"${anyCase}`;
  if ("matches" in matcher) {
    const items = preferenceItems(matcher.matches);
    return items ? `${name}${separator}${items.join(", ")}` : `${name} matches /${matcher.matches}/${anyCase}`;
  }
  if (matcher.present) return `${name} present`;
  if (matcher.absent) return `${name} absent`;
  return `${name} ${JSON.stringify(matcher)}`;
}

/*
 * A pattern that asks for items of a comma- or semicolon-separated list, read back into the
 * items a person would write: `Prefer: code=401`, `Prefer: code=404, example=missing`. What
 * `import openapi` writes for a Prefer condition is one such pattern, but this reads the class,
 * not that one string: list framing `(?:.*[,;])?` and `(?:[,;].*)?`, separators `[,;]`,
 * optional spaces `\s*`, a name in any case `(?i:code)`, a value quoted or not `(?:401|"401")`,
 * the same items in either order `(?:A|B)`, and escaped literal characters. Any other construct,
 * or a pattern with no list framing, gives null, and the pattern is shown as written.
 */
function preferenceItems(pattern) {
  const read = readListPattern(pattern, 0, false);
  if (!read || read.end !== pattern.length || !read.framed) return null;
  const items = splitItems(read.parts);
  return items.length ? items : null;
}

const LIST_LEAD = "(?:.*[,;])?";
const LIST_TAIL = "(?:[,;].*)?";
const METACHARACTERS = new Set([..."^$.*+?()[]{}|\\"]);

/** Items of a read pattern: text between separators, trimmed; an alternative is one item. */
function splitItems(parts) {
  const items = [];
  let text = "";
  for (const part of parts) {
    if (part === null) {
      if (text.trim()) items.push(text.trim());
      text = "";
    } else if (typeof part === "string") {
      text += part;
    } else {
      if (text.trim()) items.push(text.trim());
      text = "";
      items.push(...part.items);
    }
  }
  if (text.trim()) items.push(text.trim());
  return items;
}

/**
 * Reads from `at` up to the end of the pattern or, `inGroup`, up to its `|` or `)`. Parts are
 * literal text, null for an item boundary, or `{items}` for an alternation read as items.
 */
function readListPattern(pattern, at, inGroup) {
  const parts = [];
  let framed = false;
  let i = at;
  while (i < pattern.length) {
    const rest = pattern.slice(i);
    const c = pattern[i];
    if (inGroup && (c === "|" || c === ")")) break;
    if (rest.startsWith(LIST_LEAD) || rest.startsWith(LIST_TAIL)) {
      parts.push(null);
      framed = true;
      i += LIST_LEAD.length;
    } else if (rest.startsWith("[,;]")) {
      parts.push(null);
      i += 4;
    } else if (rest.startsWith("\\s*")) {
      i += 3;
    } else if (c === "\\" && i + 1 < pattern.length && !/[A-Za-z0-9]/.test(pattern[i + 1])) {
      parts.push(pattern[i + 1]);
      i += 2;
    } else if (rest.startsWith("(?i:")) {
      const inner = readListPattern(pattern, i + 4, true);
      if (!inner || pattern[inner.end] !== ")" || inner.parts.some((p) => typeof p !== "string")) return null;
      parts.push(inner.parts.join(""));
      i = inner.end + 1;
    } else if (rest.startsWith("(?:")) {
      const group = readAlternatives(pattern, i + 3);
      if (!group) return null;
      framed = framed || group.framed;
      parts.push(...group.parts);
      i = group.end;
    } else if (METACHARACTERS.has(c)) {
      return null;
    } else {
      parts.push(c);
      i += 1;
    }
  }
  return { parts, end: i, framed };
}

/**
 * `(?:A|B|...)` after its opening: one alternative alone; a value quoted or not (`401|"401"`)
 * as the value; alternatives that read as the same items in another order as those items.
 */
function readAlternatives(pattern, at) {
  const branches = [];
  let i = at;
  while (true) {
    const branch = readListPattern(pattern, i, true);
    if (!branch) return null;
    branches.push(branch);
    i = branch.end;
    if (pattern[i] === ")") break;
    if (pattern[i] !== "|") return null;
    i += 1;
  }
  const end = i + 1;
  const framed = branches.some((b) => b.framed);
  const texts = branches.map((b) => (b.parts.every((p) => typeof p === "string") ? b.parts.join("") : null));
  if (branches.length === 1) return { parts: branches[0].parts, end, framed };
  if (branches.length === 2 && texts[0] !== null && texts[1] === `"${texts[0]}"`) {
    return { parts: [texts[0]], end, framed };
  }
  const itemSets = branches.map((b) => splitItems(b.parts));
  const key = (items) => [...items].sort().join("\n");
  if (itemSets.every((items) => items.length && key(items) === key(itemSets[0]))) {
    return { parts: [{ items: itemSets[0] }], end, framed };
  }
  return null;
}

/** A body matcher in words: `JSON {"user": ...}`, `form user: ann`, `multipart file photo`. */
function bodyText(body) {
  if (body.form) return Object.entries(body.form).map(([name, m]) => `form ${matcherText(name, m)}`);
  if (body.multipart) {
    const fields = Object.entries(body.multipart.fields || {}).map(([name, m]) => `field ${matcherText(name, m)}`);
    const files = Object.entries(body.multipart.files || {}).map(([name, file]) => {
      if (file.absent) return `no file ${name}`;
      const parts = ["filename", "contentType", "content"].filter((key) => key in file)
        .map((key) => matcherText(key, file[key], " "));
      return `file ${name}${parts.length ? ` (${parts.join(", ")})` : ""}`;
    });
    return [...fields, ...files].map((line) => `multipart ${line}`);
  }
  const [kind, value] = Object.entries(body).find(([key]) => key !== "caseInsensitive") || ["body", ""];
  if (kind === "equals" || kind === "contains" || kind === "matches") return [matcherText("body", body, " ")];
  return [`body ${kind} ${JSON.stringify(value)}`];
}

function conditionsOf(request) {
  const lines = [];
  if (!request) return ["any request"];
  const path = request.path || (request.pathPattern ? `matches /${request.pathPattern}/` : "any path");
  lines.push(`${request.method ? [].concat(request.method).join(" | ") : "any method"} ${path}`);
  for (const [name, matcher] of Object.entries(request.query || {})) lines.push(matcherText(`?${name}`, matcher, "="));
  for (const [name, matcher] of Object.entries(request.headers || {})) lines.push(matcherText(name, matcher));
  if (request.host) lines.push(matcherText("Host", request.host));
  if (request.body !== undefined) lines.push(...bodyText(request.body));
  return lines;
}

function responseOf(stub) {
  if (stub.websocket) {
    const ws = stub.websocket;
    const lines = [`WebSocket: ${(ws.onOpen || []).length} on open, ${(ws.onMessage || []).length} rules, unmatched: ${ws.onUnmatched || "ignore"}`];
    if (ws.close) lines.push(`closes with ${ws.close.code || 1000}${ws.close.after ? ` after ${ws.close.after} ms` : ""}`);
    return lines;
  }
  const responses = stub.responses || [stub.response || {}];
  const first = responses[0] || {};
  const parts = [String(first.status || 200)];
  if (first.bodyFile) parts.push(`file ${first.bodyFile}`);
  else if (first.bodyBase64) parts.push("binary");
  else if (first.body !== undefined) parts.push(typeof first.body === "string" ? `text, ${bytes(first.body.length)}` : "JSON");
  if (first.template) parts.push("template");
  if (first.delay !== undefined) parts.push(`delay ${typeof first.delay === "object" ? JSON.stringify(first.delay) : first.delay + " ms"}`);
  if (first.fault) parts.push(`fault ${first.fault}`);
  if (first.dribble) parts.push("dribbled");
  if (first.events) parts.push(`${first.events.length} events, then ${first.then || "close"}`);
  if (first.eventsFile) parts.push(`events from ${first.eventsFile}, then ${first.then || "close"}`);
  const lines = [parts.join(", ")];
  if (responses.length > 1) lines.push(`sequence of ${responses.length} responses`);
  if (stub.webhooks) lines.push(`then calls ${stub.webhooks.map((w) => w.url).join(", ")}`);
  if (stub.scenario) lines.push(`scenario ${stub.scenario.name}: when "${stub.scenario.when || "Started"}"${stub.scenario.then ? ` then "${stub.scenario.then}"` : ""}`);
  return lines;
}

function drawStubs() {
  const text = $("#stub-filter").value.trim().toLowerCase();
  const body = $("#stub-table tbody");
  const rows = [];
  for (const stub of stubs) {
    const source = stub.location || (stub.source === "runtime" ? `runtime ${stub.id}` : stub.source);
    const conditions = conditionsOf(stub.request);
    const answer = responseOf(stub);
    const haystack = [stub.name, source, ...conditions, ...answer].join(" ").toLowerCase();
    if (text && !haystack.includes(text)) continue;
    rows.push(h("tr", {},
      h("td", {}, stub.name || h("span", { class: "sub" }, "(unnamed)"), stub.priority !== 5 ? h("div", { class: "sub" }, `priority ${stub.priority}`) : null),
      h("td", {}, h("code", {}, source)),
      h("td", {}, h("ul", { class: "mono" }, conditions.map((line) => h("li", {}, line)))),
      h("td", {}, h("ul", {}, answer.map((line) => h("li", {}, line))))));
  }
  body.replaceChildren(...rows);
  $("#stub-counts").textContent = `${rows.length} of ${stubs.length} stubs`;
}

tabOpened.stubs = loadStubs;
$("#stub-filter").addEventListener("input", drawStubs);
$("#stubs-refresh").addEventListener("click", loadStubs);

// ---- scenarios and sequences ------------------------------------------------------------
async function loadScenarios() {
  let data;
  try {
    data = await api("scenarios");
  } catch (error) {
    notify(`Could not load the scenarios: ${error.message}`, true);
    return;
  }
  const scenarioRows = data.scenarios.map((scenario) => {
    const choice = h("select", { "aria-label": `New state for ${scenario.name}` },
      scenario.states.map((state) => h("option", { value: state, selected: state === scenario.state }, state)));
    return h("tr", { "data-scenario": scenario.name },
      h("th", { scope: "row" }, scenario.name),
      h("td", {}, h("span", { class: "state" }, scenario.state)),
      h("td", {}, h("div", { class: "inline" }, choice,
        h("button", { type: "button", onclick: () => setScenario(scenario.name, choice.value) }, "Set"))),
      h("td", {}, h("button", { type: "button", disabled: scenario.state === "Started",
        onclick: () => setScenario(scenario.name, "Started") }, "Reset to Started")));
  });
  $("#scenario-table tbody").replaceChildren(...scenarioRows);
  $("#scenarios-empty").hidden = scenarioRows.length > 0;
  $("#scenario-table").hidden = scenarioRows.length === 0;
  const sequenceRows = data.sequences.map((sequence) => h("tr", {},
    h("th", { scope: "row" }, sequence.name || sequence.id),
    h("td", {}, `${sequence.next + 1} of ${sequence.responses}`),
    h("td", {}, sequence.afterLast === "cycle" ? "starts again" : "repeats the last")));
  $("#sequence-table tbody").replaceChildren(...sequenceRows);
  $("#sequences-empty").hidden = sequenceRows.length > 0;
  $("#sequence-table").hidden = sequenceRows.length === 0;
}

async function setScenario(name, state) {
  try {
    await api(`scenarios/${encodeURIComponent(name)}`, { method: "PUT", body: { state } });
    notify(`Scenario ${name} is now "${state}".`);
  } catch (error) {
    notify(error.message, true);
  }
  loadScenarios();
}

// Requests may move a scenario on: while the area is open, look again (at most once a second).
let scenarioTimer = 0;
function refreshScenariosSoon() {
  if (!scenarioTimer) scenarioTimer = setTimeout(() => { scenarioTimer = 0; loadScenarios(); }, 1000);
}

tabOpened.scenarios = loadScenarios;
$("#scenarios-refresh").addEventListener("click", loadScenarios);
$("#scenarios-reset").addEventListener("click", async () => {
  try {
    await api("scenarios/reset", { method: "POST" });
    notify("Every scenario is back to \"Started\" and every sequence to its first response.");
  } catch (error) {
    notify(error.message, true);
  }
  loadScenarios();
});
// ---- make a stub from a request ---------------------------------------------------------
const dialog = $("#stub-dialog");

/**
 * A stub that matches this request (method, path, its query parameters, a JSON body's
 * content) and answers what it was answered: the response it got when a stub matched, else the
 * closest stub's response, else an empty 200.
 */
async function draftStub(entry) {
  const request = { method: entry.method, path: entry.path };
  const query = Object.entries(entry.query || {});
  if (query.length) request.query = Object.fromEntries(query.map(([name, values]) => [name, values[0]]));
  const json = entry.body ? parseJSON(entry.body) : undefined;
  if (json !== undefined && typeof json === "object" && json !== null) request.body = { json: literalPattern(json) };
  let response = { status: 200, body: {} };
  if (entry.stub && entry.response) {
    response = entry.fault ? { fault: entry.fault } : { status: entry.response.status };
    const type = headerValue(entry.response.headers, "Content-Type");
    const headers = Object.fromEntries(Object.entries(entry.response.headers).map(([name, values]) => [name, values[0]]));
    if (Object.keys(headers).length) response.headers = headers;
    if (entry.response.bodyBase64 !== undefined) response.bodyBase64 = entry.response.bodyBase64;
    else if (entry.response.body) {
      const parsed = type.includes("json") ? parseJSON(entry.response.body) : undefined;
      response.body = parsed !== undefined ? parsed : entry.response.body;
    }
  } else if (entry.nearMiss && entry.nearMiss.length) {
    try {
      const closest = await api(`stubs/${encodeURIComponent(entry.nearMiss[0].id)}`);
      response = closest.response || (closest.responses || [])[0] || response;
    } catch { /* the closest stub is gone: keep the empty answer */ }
  }
  return { name: `${entry.method} ${entry.path} (from the inspector)`, request, response };
}

/** The body as a `json` pattern that means itself: an object shaped like a matcher
 * ({"present": true}) is wrapped in {"equals": ...}, as the stub format asks. */
function literalPattern(value) {
  if (Array.isArray(value)) return value.map(literalPattern);
  if (typeof value !== "object" || value === null) return value;
  const keys = Object.keys(value);
  if (keys.length && keys.every((key) => MATCHER_KEYS.includes(key))) return { equals: value };
  return Object.fromEntries(keys.map((key) => [key, literalPattern(value[key])]));
}
const MATCHER_KEYS = ["equals", "contains", "matches", "present", "absent", "greaterThan", "atLeast", "lessThan", "atMost", "caseInsensitive"];

function parseJSON(text) {
  try { return JSON.parse(text); } catch { return undefined; }
}

async function openStubDialog(entry) {
  const stub = await draftStub(entry);
  $("#stub-json").value = JSON.stringify(stub, null, 2);
  $("#stub-error").textContent = "";
  dialog.showModal();
  $("#stub-json").focus();
}

function stubFromEditor() {
  try {
    return JSON.parse($("#stub-json").value);
  } catch (error) {
    $("#stub-error").textContent = `Not valid JSON: ${error.message}`;
    return null;
  }
}

$("#stub-save").addEventListener("click", async () => {
  const stub = stubFromEditor();
  if (!stub) return;
  try {
    const saved = await api("stubs", { method: "POST", body: stub });
    dialog.close();
    notify(`Saved as runtime stub ${saved.ids.join(", ")}: the same request now matches it.`);
    if (currentArea() === "stubs") loadStubs();
  } catch (error) {
    const problems = error.data && error.data.errors ? error.data.errors.join("\n") : error.message;
    $("#stub-error").textContent = problems;
  }
});

$("#stub-download").addEventListener("click", () => {
  const stub = stubFromEditor();
  if (!stub) return;
  const name = String(stub.name || "stub").toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "") || "stub";
  const link = h("a", { href: URL.createObjectURL(new Blob([JSON.stringify(stub, null, 2) + "\n"], { type: "application/json" })), download: `${name}.json` });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
});

$("#stub-cancel").addEventListener("click", () => dialog.close());
dialog.addEventListener("close", () => { const button = $("#make-stub"); if (button) button.focus(); });

// ---- clear and reset --------------------------------------------------------------------
$("#clear-journal").addEventListener("click", async () => {
  try {
    await api("requests", { method: "DELETE" });
    clearRequests(); // the stream's "cleared" event says so too, to every open page
    detail.replaceChildren(h("p", { class: "empty" }, "The journal was cleared."));
  } catch (error) {
    notify(error.message, true);
  }
});

/** A second click within a few seconds confirms: a reset removes runtime stubs. */
function confirmingButton(button, question, action) {
  const label = button.textContent;
  let timer = 0;
  button.addEventListener("click", async () => {
    if (!timer) {
      button.textContent = question;
      button.classList.add("confirming");
      timer = setTimeout(() => { timer = 0; button.textContent = label; button.classList.remove("confirming"); }, 4000);
      return;
    }
    clearTimeout(timer);
    timer = 0;
    button.textContent = label;
    button.classList.remove("confirming");
    await action();
  });
}

confirmingButton($("#reset-all"), "Click again to reset", async () => {
  try {
    await api("reset", { method: "POST" });
    notify("Reset: runtime stubs removed, journal cleared, scenarios and sequences back to the start.");
    clearRequests();
    detail.replaceChildren(h("p", { class: "empty" }, "Everything was reset."));
    if (currentArea() === "stubs") loadStubs();
    if (currentArea() === "scenarios") loadScenarios();
  } catch (error) {
    notify(error.message, true);
  }
});

boot();
// ---- webhooks ---------------------------------------------------------------------------
const webhooks = new Map(); // id -> the call as GET /__admin/webhooks gives it

function receiveWebhook(event) {
  const call = JSON.parse(event.data);
  webhooks.set(call.id, call);
  drawWebhooks();
}

function clearWebhooks() {
  webhooks.clear();
  drawWebhooks();
}

/** "200 in 12 ms", "failed: cannot connect…", "waiting 500 ms": how a call ended, in words. */
function webhookOutcome(call) {
  switch (call.state) {
    case "sent": {
      const time = call.durationMs !== undefined ? ` in ${call.durationMs} ms` : "";
      return { text: `${call.status}${time}`, kind: `s${String(call.status)[0]}` };
    }
    case "failed": return { text: `failed: ${call.error}`, kind: "fault" };
    case "skipped": return { text: call.error, kind: "s4" };
    default: return { text: call.delayMs ? `waiting (delay ${call.delayMs} ms)` : "sending…", kind: "" };
  }
}

function drawWebhooks() {
  const body = $("#webhook-table tbody");
  const rows = [...webhooks.values()].sort((a, b) => b.id - a.id).map((call) => {
    const outcome = webhookOutcome(call);
    return h("tr", { "data-webhook": String(call.id), "data-state": call.state },
      h("td", {}, clock(call.firedAt)),
      h("td", {}, call.stub.name, h("div", { class: "sub" }, call.trigger)),
      h("td", {}, `${call.method} ${call.url}`, h("div", { class: "sub" }, `depth ${call.depth}`)),
      h("td", { class: outcome.kind }, outcome.text));
  });
  body.replaceChildren(...rows);
  $("#webhooks-empty").hidden = rows.length > 0;
}
})();
