/// The inspector's script, part 1 of 5: helpers, the admin API client, login, tabs and start-up.
/// The parts share one strict function scope (`InspectorAssets.script` wraps them); plain
/// JavaScript, no build step, no framework. Request data is only ever set as text, never as
/// HTML, so nothing a client sends can run in the page.
enum InspectorScriptCore {
    static let js = #"""
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

/**
 * Calls the admin API. Every call carries X-Stubserver-UI: 1, which the server requires of
 * cookie-authenticated requests that change something (another site's page cannot send it).
 */
async function api(path, { method = "GET", body } = {}) {
  const headers = { "X-Stubserver-UI": "1" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(new URL(path, adminRoot), {
    method, headers, credentials: "same-origin", cache: "no-store",
    body: body === undefined ? undefined : (typeof body === "string" ? body : JSON.stringify(body)),
  });
  const data = await response.json().catch(() => ({}));
  if (response.status === 401 && !path.startsWith("ui/")) showLogin();
  if (!response.ok) throw new ApiError(data.error || `${response.status} ${response.statusText}`, response.status, data);
  return data;
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
  for (const id of ["#tabs", "#actions", "#panel-requests", "#panel-stubs", "#panel-scenarios"]) $(id).hidden = true;
  setConnection("logged out", "down");
  stopEvents();
  $("#token").focus();
}

$("#login-form").addEventListener("submit", async (event) => {
  event.preventDefault(); // never a native submission: the policy allows no form target
  $("#login-error").textContent = "";
  try {
    await api("ui/login", { method: "POST", body: { token: $("#token").value } });
    $("#token").value = "";
    $("#login").hidden = true;
    start();
  } catch (error) {
    $("#login-error").textContent = error.message;
    $("#token").select();
  }
});

$("#logout").addEventListener("click", async () => {
  await api("ui/logout", { method: "POST" }).catch(() => {});
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
"""#
}
