/// The inspector's script, part 5 of 6: actions (clear the journal, reset everything, make a
/// stub from a request) and start-up.
enum InspectorScriptActions {
    static let js = #"""
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
        """#
}
