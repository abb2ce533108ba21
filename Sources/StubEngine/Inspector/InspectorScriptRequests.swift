/// The inspector's script, part 2 of 6: the live request list. Entries arrive as server-sent
/// events (one per journal entry, its id as the event id), are kept for the last `keep` only,
/// and reach the page in batches (each frame, or four times a second when busy), so a busy
/// server never freezes it.
enum InspectorScriptRequests {
    static let js = #"""
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
          if (requests.activeId === id) requests.activeId = 0;
        }

        function statusClass(entry) {
          if (entry.fault) return "fault";
          return entry.status === null ? "left" : "s" + String(entry.status).charAt(0);
        }

        function answeredBy(entry) {
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

        /** Answered (by a stub, or by the upstream it was forwarded to, or refused as an admin
         * request) rather than a near miss. */
        function wasAnswered(entry) {
          return Boolean(entry.stub || entry.proxy || entry.refused);
        }

        function timeTaken(entry) {
          const total = `${entry.durationMs < 10 ? entry.durationMs.toFixed(2) : Math.round(entry.durationMs)} ms`;
          return entry.delayMs ? `${total} (+${entry.delayMs} ms delay)` : total;
        }

        function rowFor(entry) {
          const row = h("div", { class: "row", role: "option", id: `request-${entry.id}`, "data-id": entry.id, "aria-selected": String(entry.id === requests.selectedId) },
            h("span", { class: "time" }, clock(entry.receivedAt)),
            h("span", { class: "method" }, entry.method),
            h("span", { class: "target", title: entry.target }, entry.target),
            h("span", { class: "status " + statusClass(entry) }, entry.fault ? entry.fault : entry.status === null ? "---" : entry.status),
            h("span", { class: entry.refused ? "refused" : entry.proxy ? "proxied" : entry.stub ? "stub" : "nomatch",
              title: entry.stub ? entry.stub.id : entry.proxy ? "forwarded" : entry.refused ? "an admin request the server refused" : "" },
              answeredBy(entry), abortedBadge(entry)),
            h("span", { class: "taken" }, timeTaken(entry)));
          requests.nodes.set(entry.id, row);
          return row;
        }

        function clearRequests(message) {
          requests.rows = [];
          requests.pending = [];
          requests.nodes.clear();
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
            const haystack = `${entry.method} ${entry.target} ${entry.status} ${answeredBy(entry)} ${entry.fault || ""}`.toLowerCase();
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
        """#
}
