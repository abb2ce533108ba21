/// The inspector's script, part 1 of 6: helpers, the admin API client and its token, the event
/// stream, login, tabs and start-up.
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
        """#
}
