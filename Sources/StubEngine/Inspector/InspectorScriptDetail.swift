/// The inspector's script, part 3 of 6: one request in full (fetched by id when opened): what
/// was sent, what was answered, and for a request no stub matched, the same closest-stubs
/// report as the 404, expected against actual.
enum InspectorScriptDetail {
    static let js = #"""
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
          const answered = entry.refused
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
              : entry.status === null ? "none: the client left before the answer" : String(entry.status)],
            ["Answered by", answered],
            ["Time taken", timeTaken(entry)],
          ];
          // One wrapper, so h() flattens the optional and nested parts (replaceChildren would not).
          detail.replaceChildren(h("div", {},
            h("h2", {}, `${entry.method} ${entry.target}`),
            h("dl", { class: "facts" }, facts.map(([name, value]) => [h("dt", {}, name), h("dd", {}, value)])),
            h("div", { class: "detail-actions" },
              h("button", { type: "button", id: "make-stub", onclick: () => openStubDialog(entry) }, "Make a stub from this")),
            entry.stub || entry.proxy || entry.refused ? null : nearMissReport(entry),
            abortedReport(entry),
            h("h3", {}, "Request"),
            headerTable(entry.headers),
            bodyBlock(entry, headerValue(entry.headers, "Content-Type")),
            h("h3", {}, "Response"),
            entry.response ? [headerTable(entry.response.headers), bodyBlock(entry.response, headerValue(entry.response.headers, "Content-Type"))]
              : h("p", { class: "note" }, "The client left before the answer was ready.")));
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
        """#
}
