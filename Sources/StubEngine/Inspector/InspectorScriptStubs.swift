/// The inspector's script, part 4 of 6: the Stubs area (every stub in match order, where it
/// comes from, its conditions and its answer, filtered by text) and the Scenarios area (states,
/// with buttons to set and reset them; sequences and the response each gives next).
enum InspectorScriptStubs {
    static let js = #"""
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

        /** "equals x", "contains json": a matcher as the stub file writes it, in words. */
        function matcherText(matcher) {
          if (matcher === null || typeof matcher !== "object") return `= ${JSON.stringify(matcher)}`;
          return Object.entries(matcher).map(([kind, value]) => `${kind} ${JSON.stringify(value)}`).join(", ");
        }

        function conditionsOf(request) {
          const lines = [];
          if (!request) return ["any request"];
          const path = request.path || (request.pathPattern ? `matches ${request.pathPattern}` : "any path");
          lines.push(`${request.method ? [].concat(request.method).join(" | ") : "any method"} ${path}`);
          for (const [name, matcher] of Object.entries(request.query || {})) lines.push(`query ${name} ${matcherText(matcher)}`);
          for (const [name, matcher] of Object.entries(request.headers || {})) lines.push(`header ${name} ${matcherText(matcher)}`);
          if (request.host) lines.push(`host ${matcherText(request.host)}`);
          if (request.body !== undefined) lines.push(`body ${matcherText(request.body)}`);
          return lines;
        }

        function responseOf(stub) {
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
        """#
}
