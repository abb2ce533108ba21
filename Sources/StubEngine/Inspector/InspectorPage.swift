/// The inspector's page (`GET /__admin/ui`): structure only. Style is `app.css`, behaviour
/// `app.js`; no inline script or style, so the Content-Security-Policy can forbid both.
/// Every address is relative, so the page works under a reverse proxy's path prefix.
enum InspectorPage {
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>stubserver inspector</title>
        <link rel="icon" href="data:,">
        <link rel="stylesheet" href="ui/app.css">
        <script src="ui/app.js" defer></script>
        </head>
        <body>
        <header class="bar">
          <h1>stubserver <span>inspector</span></h1>
          <div role="tablist" aria-label="Areas" id="tabs" hidden>
            <button type="button" role="tab" id="tab-requests" aria-controls="panel-requests" aria-selected="true">Requests</button>
            <button type="button" role="tab" id="tab-stubs" aria-controls="panel-stubs" aria-selected="false" tabindex="-1">Stubs</button>
            <button type="button" role="tab" id="tab-scenarios" aria-controls="panel-scenarios" aria-selected="false" tabindex="-1">Scenarios</button>
            <button type="button" role="tab" id="tab-webhooks" aria-controls="panel-webhooks" aria-selected="false"
              tabindex="-1">Webhooks</button>
          </div>
          <p id="connection" class="connection" role="status">connecting…</p>
          <div class="actions" id="actions" hidden>
            <button type="button" id="clear-journal">Clear journal</button>
            <button type="button" id="reset-all" class="danger">Reset everything</button>
            <button type="button" id="logout" hidden>Log out</button>
          </div>
        </header>
        <p id="notice" class="notice" role="status" aria-live="polite"></p>
        <main id="main">
          <section id="login" class="login" hidden>
            <form id="login-form" novalidate>
              <h2>This server needs its admin token</h2>
              <p>It was started with <code>--admin-token</code>, or it listens beyond this machine and printed a token when it started. This tab keeps the token until you log out or close it.</p>
              <label for="token">Admin token</label>
              <input id="token" name="token" type="password" autocomplete="current-password" required>
              <button type="submit">Log in</button>
              <p id="login-error" class="error" role="alert"></p>
            </form>
          </section>

          <section id="panel-requests" role="tabpanel" aria-labelledby="tab-requests" class="panel requests" hidden>
            <div class="filters" role="search" aria-label="Filter requests">
              <label>Method
                <select id="filter-method">
                  <option value="">any</option><option>GET</option><option>POST</option><option>PUT</option>
                  <option>PATCH</option><option>DELETE</option><option>HEAD</option><option>OPTIONS</option>
                </select>
              </label>
              <label>Status
                <select id="filter-status">
                  <option value="">any</option><option value="2">2xx</option><option value="3">3xx</option>
                  <option value="4">4xx</option><option value="5">5xx</option><option value="fault">fault</option>
                </select>
              </label>
              <label>Answered by
                <select id="filter-match">
                  <option value="">anything</option><option value="matched">a stub</option><option value="unmatched">no match</option>
                </select>
              </label>
              <label class="grow">Text
                <input id="filter-text" type="search" placeholder="path, stub name, status…" autocomplete="off">
              </label>
              <p id="counts" class="counts" aria-live="off"></p>
            </div>
            <div class="split">
              <div class="list-wrap">
                <div class="list-head" aria-hidden="true">
                  <span>Time</span><span>Method</span><span>Path</span><span>Status</span><span>Answered by</span><span>Time taken</span>
                </div>
                <div id="request-list" class="list" role="listbox" tabindex="0" aria-label="Requests, newest first. Arrow keys move, Enter opens."></div>
                <p id="list-empty" class="empty">No requests yet. Point your app at this server, or try <code>curl</code>.</p>
              </div>
              <article id="detail" class="detail" tabindex="-1" aria-label="Request details">
                <p class="empty">Select a request to see what was sent and what was answered.</p>
              </article>
            </div>
          </section>

          <section id="panel-stubs" role="tabpanel" aria-labelledby="tab-stubs" class="panel" hidden>
            <div class="filters">
              <label class="grow">Filter stubs
                <input id="stub-filter" type="search" placeholder="name, path, file…" autocomplete="off">
              </label>
              <button type="button" id="stubs-refresh">Refresh</button>
              <p id="stub-counts" class="counts"></p>
            </div>
            <table class="table" id="stub-table">
              <thead><tr><th scope="col">Stub</th><th scope="col">Source</th><th scope="col">Conditions</th><th scope="col">Response</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>

          <section id="panel-scenarios" role="tabpanel" aria-labelledby="tab-scenarios" class="panel" hidden>
            <div class="filters">
              <button type="button" id="scenarios-reset" class="danger">Reset all scenarios and sequences</button>
              <button type="button" id="scenarios-refresh">Refresh</button>
            </div>
            <h2>Scenarios</h2>
            <table class="table" id="scenario-table">
              <thead><tr><th scope="col">Scenario</th><th scope="col">Current state</th><th scope="col">Set state</th><th scope="col"><span class="visually-hidden">Reset</span></th></tr></thead>
              <tbody></tbody>
            </table>
            <p id="scenarios-empty" class="empty" hidden>No stub uses a scenario.</p>
            <h2>Sequences</h2>
            <table class="table" id="sequence-table">
              <thead><tr><th scope="col">Stub</th><th scope="col">Next response</th><th scope="col">After the last</th></tr></thead>
              <tbody></tbody>
            </table>
            <p id="sequences-empty" class="empty" hidden>No stub has a sequence of responses.</p>
          </section>

          <section id="panel-webhooks" role="tabpanel" aria-labelledby="tab-webhooks" class="panel" hidden>
            <table class="table" id="webhook-table">
              <thead><tr><th scope="col">Fired</th><th scope="col">Stub and request</th><th scope="col">Call</th>
                <th scope="col">Outcome</th></tr></thead>
              <tbody></tbody>
            </table>
            <p id="webhooks-empty" class="empty">No webhook calls yet. A stub's <code>webhooks</code> (or a WireMock
              mapping's <code>serveEventListeners</code>) are called after it answers.</p>
          </section>
        </main>

        <dialog id="stub-dialog" aria-labelledby="stub-dialog-title">
          <h2 id="stub-dialog-title">Make a stub from this request</h2>
          <p>Edit it as you like. <strong>Save</strong> adds it as a runtime stub (gone after a reset or restart); <strong>Download</strong> gives you a file for your stubs folder.</p>
          <label for="stub-json">Stub (JSON)</label>
          <textarea id="stub-json" rows="18" spellcheck="false"></textarea>
          <p id="stub-error" class="error" role="alert"></p>
          <div class="dialog-actions">
            <button type="button" id="stub-save" class="primary">Save as runtime stub</button>
            <button type="button" id="stub-download">Download file</button>
            <button type="button" id="stub-cancel">Cancel</button>
          </div>
        </dialog>
        </body>
        </html>
        """#
}
