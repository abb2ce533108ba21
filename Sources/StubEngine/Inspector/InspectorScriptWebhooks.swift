/// The inspector's script, part 6 of 6: the Webhooks area. Every call the server made after a
/// stub answered (or did not make: the depth limit), newest first, with how it ended. The
/// event stream sends a `webhook` event when a call is made and again when it ends; the table
/// keeps the latest of each.
enum InspectorScriptWebhooks {
    static let js = #"""
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
        """#
}
