#!/usr/bin/env python3
"""The inspector in a real browser: headless Chromium (Debian's chromium and chromium-driver)
driven by selenium, against the freshly built stubserver binary.

    python3 Tests/browser/inspector_test.py [--binary PATH] [--screenshots DIR]

Starts stubserver on port 0 (the port read from its ready line, never a fixed port, never a
sleep), opens /__admin/ui and checks what issue 17 asks: 50 mixed requests (matched, unmatched,
a fault, a delayed one) all in the list within 1 s of the last; an unmatched row shows the 404's
mismatch lines; "make a stub from this" makes a stub that then matches; scenarios set and reset
from the page; the keyboard; the page weight and no request to another origin; and, with
--admin-token, no data before the login; and (issue 32) streams as they happen: a WebSocket's
messages both ways with near misses, an event stream's events, how each ended, the bound on a
long stream. Saves light and dark screenshots for docs/inspector.md.
Prints one line per check and "N passed, N failed"; exits 1 if any failed.
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from inspector_support import Browser, StubServer, until, ROOT  # noqa: E402
from script_support import Checks, add_binary_argument, binary as binary_path, http  # noqa: E402

EXTRA_STUBS = [
    {"name": "Slow answer", "request": {"method": "GET", "path": "/v1/slow"}, "response": {"delay": 300, "body": {"slow": True}}},
    {"name": "Broken connection", "request": {"method": "GET", "path": "/v1/broken"}, "response": {"fault": "reset"}},
    {"name": "Checkout: pay", "request": {"method": "POST", "path": "/v1/checkout/pay"},
     "scenario": {"name": "checkout", "when": "Started", "then": "paid"}, "response": {"status": 201, "body": {"paid": True}}},
    {"name": "Checkout: ship", "request": {"method": "POST", "path": "/v1/checkout/ship"},
     "scenario": {"name": "checkout", "when": "paid", "then": "shipped"}, "response": {"status": 201}},
    {"name": "Retry then succeed", "request": {"method": "GET", "path": "/v1/retry"},
     "responses": [{"status": 503}, {"status": 200, "body": {"ok": True}}]},
    # A pattern only the backtracking engine runs: a crafted token makes its match give up.
    # Issue 36: what `import openapi` writes for `Prefer: code=401` (PreferCondition), an answer
    # with a long unbroken body and header, and a multipart upload.
    {"name": "Orders 401 (Prefer: code=401)", "priority": 3,
     "request": {"method": "GET", "path": "/v1/orders",
                 "headers": {"Prefer": {"matches": r'(?:.*[,;])?\s*(?i:code)\s*=\s*(?:401|"401")\s*(?:[,;].*)?'}}},
     "response": {"status": 401, "body": {"error": "unauthorized"}}},
    # The same class written by hand: no (?i:...), no quoted form, other spacing.
    {"name": "Orders 409 (Prefer: code=409)", "priority": 3,
     "request": {"method": "POST", "path": "/v1/orders",
                 "headers": {"Prefer": {"matches": r'(?:.*[,;])?\s*code=409\s*(?:[,;].*)?'}}},
     "response": {"status": 409}},
    {"name": "Long key", "request": {"method": "GET", "path": "/v1/keyed", "headers": {"X-Api-Key": "k" * 240},
                                     "query": {"session": "s" * 120}}, "response": {"body": "a" * 500}},
    {"name": "Long answer", "request": {"method": "GET", "path": "/v1/long"},
     "response": {"headers": {"X-Trace": "t" * 400}, "body": {"token": "x" * 3000, "path": "/a" * 300}}},
    {"name": "Photo upload", "request": {"method": "POST", "path": "/v1/photos",
                                         "body": {"multipart": {"fields": {"caption": "Holiday"},
                                                                "files": {"photo": {"contentType": "image/jpeg"}}}}},
     "response": {"status": 201}},
    # Issue 32: a socket that echoes every message, for a stream longer than the journal keeps.
    {"name": "Echo socket", "request": {"method": "GET", "path": "/v1/echo-socket"},
     "websocket": {"onMessage": [{"reply": [{"send": "{{message.text}}"}]}]}},
    {"name": "Guarded token", "request": {"method": "GET", "path": "/v1/guarded", "headers": {"X-Token": {"matches": "^(a+)+(?!b)$"}}},
     "response": {"body": {"ok": True}}},
]


def sideways(browser):
    """What scrolls sideways on the page as shown: the page itself, or any visible box whose
    content is wider than it (a long regex, a body without spaces)."""
    return browser.js("""
        const wide = [];
        const root = document.documentElement;
        if (root.scrollWidth > root.clientWidth + 1) wide.push(`the page: ${root.scrollWidth} > ${root.clientWidth}`);
        for (const e of document.querySelectorAll("main *")) {
          if (e.offsetParent === null) continue;
          const overflow = getComputedStyle(e).overflowX;
          if ((overflow === "auto" || overflow === "scroll") && e.scrollWidth > e.clientWidth + 1)
            wide.push(`${e.tagName.toLowerCase()}#${e.id}.${e.className}: ${e.scrollWidth} > ${e.clientWidth}`);
        }
        return wide;""")


def mixed_requests():
    """50 requests: matched, unmatched (near misses), one fault, one delayed. Each carries a
    probe number so its row can be found."""
    requests = []
    for i in range(50):
        kind = i % 5
        if i == 17:
            requests.append(("GET", f"/v1/broken?probe={i}", {}, None, "fault"))
        elif i == 33:
            requests.append(("GET", f"/v1/slow?probe={i}", {}, None, "delayed"))
        elif kind == 0:
            requests.append(("GET", f"/v1/user/{i}?probe={i}", {}, None, "unmatched"))
        elif kind == 1:
            requests.append(("GET", f"/v1/users/{i}?probe={i}", {"Authorization": "Bearer abc"}, None, "matched"))
        elif kind == 2:
            requests.append(("GET", f"/v1/search?q=Swift&probe={i}", {}, None, "matched"))
        elif kind == 3:
            requests.append(("POST", f"/v1/register?probe={i}", {"Content-Type": "application/json"}, '{"username":"swift-senpai"}', "matched"))
        else:
            requests.append(("GET", f"/v1/nothing/here?probe={i}", {"Accept": "application/json"}, None, "unmatched"))
    return requests


# Stubs `import openapi` writes now, whatever its Prefer patterns look like: the inspector reads
# the class of pattern, so a change in the importer shows here rather than as raw regexes.
PREFER_SPEC = {
    "openapi": "3.0.3", "info": {"title": "Widgets", "version": "1"},
    "paths": {"/v1/widgets/{id}": {"get": {"operationId": "widget", "responses": {
        "200": {"description": "ok", "content": {"application/json": {"example": {"id": 1}}}},
        "404": {"description": "gone", "content": {"application/json": {"examples": {
            "gone": {"value": {"error": "gone"}}, "never made": {"value": {"error": "never"}}}}}}}}}},
}


def import_prefer_stubs(binary, scratch, folder):
    spec = os.path.join(scratch, "widgets.json")
    with open(spec, "w") as out:
        json.dump(PREFER_SPEC, out)
    subprocess.run([binary, "import", "openapi", spec, "--out", os.path.join(folder, "imported")],
                   check=True, stdout=subprocess.DEVNULL)


def main():
    parser = argparse.ArgumentParser()
    add_binary_argument(parser)
    parser.add_argument("--screenshots", default=os.path.join(ROOT, "docs", "images"))
    args = parser.parse_args()
    binary = binary_path(args)
    os.makedirs(args.screenshots, exist_ok=True)
    checks = Checks()
    # The server runs in a scratch folder with --dir stubs, so sources read as in a real project.
    scratch = tempfile.mkdtemp(prefix="inspector-browser-")
    folder = os.path.join(scratch, "stubs")
    shutil.copytree(os.path.join(ROOT, "stubs"), folder)
    with open(os.path.join(folder, "inspector-test.json"), "w") as out:
        json.dump(EXTRA_STUBS, out, indent=2)
    import_prefer_stubs(binary, scratch, folder)
    browser = Browser()
    try:
        with StubServer(binary, "stubs", cwd=scratch) as server:
            open_mode(checks, browser, server, args.screenshots)
        with StubServer(binary, "stubs", "--admin-token", "t0k3n", cwd=scratch) as server:
            token_mode(checks, browser, server, args.screenshots)
        with StubServer(binary, "stubs", "--host", "0.0.0.0", cwd=scratch) as server:
            lan_mode(checks, browser, server)
        with Upstream() as upstream, StubServer(binary, "stubs", "--proxy", upstream.base, cwd=scratch) as server:
            proxy_mode(checks, browser, server, upstream)
        with StubServer(binary, "stubs", cwd=scratch) as server:
            streams_mode(checks, browser, server, args.screenshots)
        # The forward proxy's CA goes into a home of its own, never the user's ~/.stubserver.
        os.environ["STUBSERVER_HOME"] = os.path.join(scratch, "home")
        with Upstream() as upstream, StubServer(binary, "stubs", "--forward-proxy", "--intercept", "api.example.com",
                                                cwd=scratch) as server:
            forward_proxy_mode(checks, browser, server, upstream, os.path.join(scratch, "home", "ca.pem"))
    finally:
        browser.quit()
        shutil.rmtree(scratch, ignore_errors=True)
    return checks.finish()


def open_mode(checks, browser, server, screenshots):
    base = server.base
    checks.check("the line after the ready line is the inspector's address", server.inspector_line == f"inspector: {base}/__admin/ui",
                 server.inspector_line)
    browser.open(base + "/__admin/ui")
    checks.check("the page connects to the event stream", until(lambda: browser.text("#connection") == "live", 10), browser.text("#connection"))

    # 50 mixed requests, then every one of them in the list within a second of the last.
    sent, not_found_bodies = [], {}
    for method, path, headers, body, kind in mixed_requests():
        status, _, text = http(base, path, method, headers, body)
        sent.append((method, path, kind, status))
        if kind == "unmatched":
            not_found_bodies[path] = text
    last_answered = time.monotonic()
    probes = {f"probe={i}" for i in range(50)}

    def all_rows_shown():
        targets = browser.js("return [...document.querySelectorAll('#request-list .row .target')].map(e => e.textContent)")
        return probes <= {m.group(0) for t in targets for m in [re.search(r"probe=\d+", t)] if m}
    shown = until(all_rows_shown, 5, interval=0.02)
    elapsed = time.monotonic() - last_answered
    checks.check("all 50 requests are in the list within 1 s of the last answer", shown and elapsed <= 1.0, f"{elapsed:.3f} s")
    checks.check("the fault was a broken connection, the delayed one took its delay",
                 dict((p, s) for _, p, k, s in sent if k in ("fault",)) == {"/v1/broken?probe=17": 0})
    fault_row = browser.js("return document.querySelector('#request-list .row .status.fault')?.textContent")
    checks.check("the fault's row names the fault", fault_row == "reset", fault_row)
    delayed_taken = browser.js("""return [...document.querySelectorAll('#request-list .row')]
        .find(r => r.querySelector('.target').textContent.includes('probe=33'))?.querySelector('.taken').textContent""")
    checks.check("the delayed row shows its delay", delayed_taken is not None and "+300 ms delay" in delayed_taken, delayed_taken)
    counts = browser.text("#counts")
    checks.check("the counts say what is shown", counts.startswith("50 shown"), counts)

    # The keyboard: Tab reaches the list, arrows move, Enter opens.
    browser.js("document.activeElement.blur(); window.scrollTo(0, 0)")
    reached = browser.tab_until("request-list", 30)
    checks.check("Tab reaches the request list", reached)
    browser.keys("Home")
    first = browser.js("return document.querySelector('#request-list').getAttribute('aria-activedescendant')")
    browser.keys("ArrowDown", "ArrowDown")
    third = browser.js("return document.querySelector('#request-list').getAttribute('aria-activedescendant')")
    checks.check("arrow keys move through the list", first and third and first != third, f"{first} -> {third}")
    browser.keys("Enter")
    expected_title = browser.js(f"return document.getElementById('{third}').querySelector('.method').textContent + ' ' + document.getElementById('{third}').querySelector('.target').textContent")
    checks.check("Enter opens the request", until(lambda: browser.text("#detail h2") == expected_title, 5), f"{browser.text('#detail h2')!r} vs {expected_title!r}")
    focus_ring = browser.js("return getComputedStyle(document.querySelector('#request-list .row.active')).outlineStyle")
    checks.check("the active row has a visible focus ring", focus_ring == "solid", focus_ring)

    # An unmatched row: the same mismatch lines as the 404's body.
    unmatched_path = "/v1/user/0?probe=0"
    browser.click_row(unmatched_path)
    until(lambda: browser.count("#detail .nearmiss .mismatch") > 0, 5)
    shown_lines = browser.js("return [...document.querySelectorAll('#detail .nearmiss .mismatch')].map(e => e.textContent)")
    body_lines = [line.strip() for line in not_found_bodies[unmatched_path].splitlines() if ": expected " in line]
    checks.check("an unmatched row shows the 404's mismatch lines", shown_lines == body_lines and len(body_lines) > 0,
                 f"page {shown_lines} vs 404 {body_lines}")
    highlighted = browser.js("return [...document.querySelectorAll('#detail .nearmiss mark.expected, #detail .nearmiss mark.actual')].length")
    checks.check("expected and actual are highlighted", highlighted == 2 * len(body_lines), highlighted)
    json_404 = "/v1/nothing/here?probe=4"
    browser.click_row(json_404)
    until(lambda: browser.text("#detail h2") == f"GET {json_404}", 5)
    pretty = until(lambda: browser.js("return document.querySelector('#detail pre.body')?.textContent || ''").startswith('{\n  "error": "no stub matched"'), 3)
    checks.check("a JSON body is pretty-printed", pretty, browser.js("return document.querySelector('#detail pre.body')?.textContent || ''")[:60])
    browser.click_row(unmatched_path)
    until(lambda: browser.count("#detail .nearmiss .mismatch") > 0, 5)
    browser.screenshot(os.path.join(screenshots, "inspector-requests-light.png"))
    browser.dark(True)
    browser.screenshot(os.path.join(screenshots, "inspector-requests-dark.png"))
    dark_background = browser.js("return getComputedStyle(document.body).backgroundColor")
    checks.check("dark mode follows prefers-color-scheme", dark_background == "rgb(21, 24, 28)", dark_background)
    browser.dark(False)

    # Make a stub from the unmatched request: it then matches the same request.
    browser.click("#make-stub")
    until(lambda: browser.js("return document.querySelector('#stub-dialog').open"), 5)
    draft = json.loads(browser.js("return document.querySelector('#stub-json').value"))
    checks.check("the draft is pre-filled from the request and the near miss",
                 draft["request"] == {"method": "GET", "path": "/v1/user/0", "query": {"probe": "0"}} and draft["response"].get("status") == 401, draft)
    downloads = tempfile.mkdtemp(prefix="inspector-downloads-")
    browser.allow_downloads(downloads)
    browser.click("#stub-download")
    downloaded = os.path.join(downloads, "get-v1-user-0-from-the-inspector.json")
    checks.check("the draft downloads as a stub file", until(lambda: os.path.exists(downloaded) and json.load(open(downloaded)) == draft, 5),
                 os.listdir(downloads))
    shutil.rmtree(downloads, ignore_errors=True)
    browser.click("#stub-save")
    until(lambda: "Saved as runtime stub" in browser.text("#notice"), 5)
    status, _, _ = http(base, unmatched_path)
    _, _, journal = http(base, "/__admin/requests?limit=1")
    last = json.loads(journal)["requests"][-1]
    checks.check("the new stub matches the same request", last["stub"] and last["stub"]["name"] == "GET /v1/user/0 (from the inspector)", last.get("stub"))
    row_answer = until(lambda: browser.js("""return [...document.querySelectorAll('#request-list .row')].find(r => r.querySelector('.stub')?.textContent === 'GET /v1/user/0 (from the inspector)') !== undefined"""), 3)
    checks.check("its row names the new stub", row_answer)

    # Filters.
    browser.select("#filter-match", "unmatched")
    rows = browser.js("return [...document.querySelectorAll('#request-list .row .nomatch')].length === document.querySelectorAll('#request-list .row').length && document.querySelectorAll('#request-list .row').length")
    checks.check("the unmatched filter shows only unmatched rows", rows == 20, rows)
    browser.select("#filter-match", "")
    browser.type("#filter-text", "search")
    search_rows = browser.count("#request-list .row")
    expected_rows = sum(1 for _, path, _, _ in sent if "search" in path)
    checks.check("the text filter", search_rows == expected_rows, f"{search_rows} rows, {expected_rows} sent")
    browser.type("#filter-text", "")

    # Stubs.
    browser.click("#tab-stubs")
    until(lambda: browser.count("#stub-table tbody tr") > 0, 5)
    total = browser.count("#stub-table tbody tr")
    browser.type("#stub-filter", "checkout")
    checks.check("the stubs list filters by text", until(lambda: browser.count("#stub-table tbody tr") == 2, 3), browser.count("#stub-table tbody tr"))
    source = browser.js("return document.querySelector('#stub-table tbody tr td:nth-child(2)').textContent")
    checks.check("a file stub shows its file and line", re.search(r"inspector-test\.json:\d+$", source) is not None, source)
    browser.type("#stub-filter", "")
    checks.check("every stub is listed, the runtime one too", total == len(json.loads(http(base, "/__admin/stubs")[2])["stubs"]) and
                 "runtime" in browser.text("#stub-table"), total)
    browser.screenshot(os.path.join(screenshots, "inspector-stubs-light.png"))

    # Issue 36: conditions read as written, and at 1280 px nothing scrolls sideways.
    conditions = browser.js("return [...document.querySelectorAll('#stub-table li')].map(e => e.textContent)")
    prefer = [line for line in conditions if line.startswith("Prefer")]
    wanted = {"Prefer: code=401", "Prefer: code=409", "Prefer: code=200", "Prefer: code=404",
              "Prefer: code=404, example=gone",
              "Prefer: code=404, example=never made",
              # An example asked for by name alone, under whichever status documents it.
              "Prefer: example=gone", "Prefer: example=never made"}
    checks.check("a Prefer condition reads as a person writes it, the importer's too",
                 wanted <= set(prefer) and all(line in wanted or "matches /" in line for line in prefer), prefer)
    checks.check("a pattern of another kind is shown as written",
                 "X-Token matches /^(a+)+(?!b)$/" in conditions, [line for line in conditions if "X-Token" in line])
    checks.check("a multipart condition names its field and file",
                 "multipart field caption: Holiday" in conditions
                 and "multipart file photo (contentType image/jpeg)" in conditions,
                 [line for line in conditions if line.startswith("multipart")])
    browser.driver.set_window_size(1280, 900)
    checks.check("the stubs at 1280 px: no sideways scrolling", until(lambda: not sideways(browser), 2), sideways(browser))
    http(base, "/v1/long")
    browser.click("#tab-requests")
    until(lambda: browser.js("""return [...document.querySelectorAll('#request-list .row .target')]
        .some(t => t.textContent === '/v1/long')"""), 5)
    browser.click_row("/v1/long")
    until(lambda: "/v1/long" in browser.text("#detail"), 5)
    checks.check("a long answer at 1280 px wraps: no sideways scrolling", until(lambda: not sideways(browser), 2),
                 sideways(browser))
    for tab in ("scenarios", "webhooks"):
        browser.click(f"#tab-{tab}")
        checks.check(f"the {tab} at 1280 px: no sideways scrolling", until(lambda: not sideways(browser), 2),
                     sideways(browser))
    browser.driver.set_window_size(1400, 900)
    browser.click("#tab-stubs")

    # Scenarios: state moved by a request, shown, set and reset from the page.
    http(base, "/v1/checkout/pay", "POST", {}, "")
    browser.click("#tab-scenarios")
    state = lambda: browser.js("return document.querySelector('[data-scenario=\"checkout\"] .state')?.textContent")
    checks.check("the scenario's state is shown", until(lambda: state() == "paid", 5), state())
    browser.select('[data-scenario="checkout"] select', "shipped")
    browser.click('[data-scenario="checkout"] .inline button')
    api_state = lambda: json.loads(http(base, "/__admin/scenarios")[2])["scenarios"][0]["state"]
    checks.check("a state is set from the page", until(lambda: api_state() == "shipped" and state() == "shipped", 5), api_state())
    browser.dark(True)
    browser.screenshot(os.path.join(screenshots, "inspector-scenarios-dark.png"))
    browser.dark(False)
    browser.click("#scenarios-reset")
    checks.check("scenario reset works from the page", until(lambda: api_state() == "Started" and state() == "Started", 5), api_state())

    # Clear the journal.
    browser.click("#tab-requests")
    browser.click("#clear-journal")
    checks.check("clear journal empties the list and the journal",
                 until(lambda: browser.count("#request-list .row") == 0 and json.loads(http(base, "/__admin/requests")[2])["requests"] == [], 5))

    # A regex match that gave up (the backtracking budget): its row says so, and its detail
    # names the stub, the condition and the pattern, and marks the near-miss line "aborted".
    _, _, aborted_404 = http(base, "/v1/guarded?probe=aborted", "GET", {"X-Token": "a" * 40 + "!"})
    checks.check("the aborted row is marked", until(lambda: "regex aborted" in browser.text("#request-list"), 5), browser.text("#request-list"))
    browser.click_row("/v1/guarded?probe=aborted")
    until(lambda: browser.count("#detail .regex-aborted .aborted-match") > 0, 5)
    aborted_text = browser.js("return document.querySelector('#detail .regex-aborted .aborted-match')?.textContent || ''")
    checks.check("the detail names the aborted match", aborted_text.startswith('"Guarded token" header.X-Token: /^(a+)+(?!b)$/ aborted: gave up after'),
                 aborted_text)
    shown_lines = browser.js("return [...document.querySelectorAll('#detail .nearmiss .mismatch')].map(e => e.textContent)")
    body_lines = [line.strip() for line in aborted_404.splitlines() if ": expected " in line]
    checks.check("the near-miss line says aborted, as the 404 does", shown_lines == body_lines and "(aborted: " in "".join(body_lines),
                 f"page {shown_lines} vs 404 {body_lines}")

    # Webhooks: a stub whose answer is followed by a call (to this server), shown with its outcome.
    hook = {"name": "Order with webhook", "request": {"method": "POST", "path": "/v1/orders"}, "response": {"status": 202},
            "webhooks": [{"url": base + "/v1/webhook-target", "body": {"event": "created"}}]}
    http(base, "/__admin/stubs", "POST", {"Content-Type": "application/json"}, json.dumps(hook))
    http(base, "/v1/orders", "POST", {}, "")
    browser.click("#tab-webhooks")
    outcome = lambda: browser.js("return document.querySelector('#webhook-table tbody tr[data-state=\"sent\"] td:nth-child(4)')?.textContent")
    checks.check("a webhook call is shown with its outcome", until(lambda: (outcome() or "").startswith("404 in "), 5), outcome())
    call = browser.js("return document.querySelector('#webhook-table tbody tr td:nth-child(3)')?.textContent") or ""
    checks.check("its row says what was called", call.startswith(f"POST {base}/v1/webhook-target"), call)

    # Weight and origins.
    weight = browser.js("""return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))
        .filter(e => /\\/__admin\\/ui(\\/app\\.(js|css))?$/.test(e.name)).reduce((sum, e) => sum + e.decodedBodySize, 0)""")
    checks.check(f"page weight under 150 KB ({weight / 1024:.1f} KB)", 0 < weight < 150 * 1024, weight)
    origins = browser.requested_urls()
    foreign = [u for u in origins if not (u.startswith(base + "/") or u.startswith("data:"))]
    checks.check(f"zero requests to another origin ({len(origins)} requests seen)", origins and not foreign, foreign)
    errors = browser.console_errors()
    checks.check("no errors in the console (no policy violation)", not errors, errors)


def token_mode(checks, browser, server, screenshots):
    base = server.base
    browser.open(base + "/__admin/ui")
    checks.check("with a token the page shows only the login",
                 until(lambda: browser.visible("#login") and not browser.visible("#panel-requests") and not browser.visible("#tabs"), 5))
    http(base, "/v1/users/1", headers={"Authorization": "Bearer abc"})
    in_page = browser.js_async("fetch('requests').then(r => arguments[0](r.status))")
    checks.check("data routes answer 401 before the login", in_page == 401 and http(base, "/__admin/requests")[0] == 401, in_page)
    checks.check("no request reaches the page before the login", browser.count("#request-list .row") == 0)
    browser.screenshot(os.path.join(screenshots, "inspector-login-light.png"))
    browser.type("#token", "wrong")
    browser.click("#login-form button")
    checks.check("a wrong token is refused", until(lambda: "not this server's admin token" in browser.text("#login-error"), 5), browser.text("#login-error"))
    browser.type("#token", "t0k3n")
    browser.click("#login-form button")
    checks.check("after the login the data arrives", until(lambda: browser.count("#request-list .row .stub") == 1 and browser.text("#connection") == "live", 10),
                 (browser.count("#request-list .row"), browser.text("#connection")))
    refused = "#request-list .row .refused"
    checks.check("the two tries without the token are listed as refused",
                 browser.count(refused) == 2 and "refused: no valid admin token" in browser.text(refused), browser.count(refused))
    checks.check("the token is kept in the tab, never in a cookie",
                 browser.js("return sessionStorage.getItem('stubserver-admin-token')") == "t0k3n"
                 and browser.js("return document.cookie") == "" and not browser.cookies(), browser.cookies())
    reloaded = browser.js_async("fetch('requests', {headers: {Authorization: 'Bearer ' + "
                                "sessionStorage.getItem('stubserver-admin-token')}}).then(r => arguments[0](r.status))")
    checks.check("the page's calls carry the token as a Bearer header", reloaded == 200, reloaded)
    browser.open(base + "/__admin/ui")
    checks.check("a reload keeps the tab logged in", until(lambda: browser.text("#connection") == "live", 10), browser.text("#connection"))
    browser.click("#logout")
    checks.check("logging out shows the login again and forgets the token",
                 until(lambda: browser.visible("#login"), 5) and browser.js("return sessionStorage.length") == 0)
    errors = [e for e in browser.console_errors() if "401" not in e and "403" not in e]
    checks.check("no other errors in the console", not errors, errors)


def lan_mode(checks, browser, server):
    """Listening on every address: the printed address carries the token after '#'."""
    checks.check("(lan) the server made up a token and printed the inspector's address with it",
                 server.token and len(server.token) == 48, server.inspector_line)
    base = server.base
    checks.check("(lan) the admin API needs it, from loopback too", http(base, "/__admin/requests")[0] == 401)
    http(base, "/v1/users/1", headers={"Authorization": "Bearer abc"})
    browser.open(f"{base}/__admin/ui#token={server.token}")
    checks.check("(lan) the printed address logs the page in", until(lambda: browser.count("#request-list .row .stub") == 1, 10),
                 browser.text("#connection"))
    checks.check("(lan) the token leaves the address bar", "token" not in browser.js("return location.href"),
                 browser.js("return location.href"))
    checks.check("(lan) no cookie is set", not browser.cookies(), browser.cookies())
    browser.click("#logout")


class Upstream:
    """A plain HTTP server standing in for a real backend, on a free port, in a thread."""

    def __enter__(self):
        import http.server, threading

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                body = b'{"from":"upstream"}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *_):
        self.server.shutdown()


def proxy_mode(checks, browser, server, upstream):
    base = server.base
    browser.open(base + "/__admin/ui")
    checks.check("(proxy) the page connects", until(lambda: browser.text("#connection") == "live", 10))
    status, _, text = http(base, "/v1/not-stubbed?probe=proxy")
    checks.check("(proxy) an unmatched request is forwarded", status == 200 and "upstream" in text, (status, text))
    row = "#request-list .row .proxied"
    checks.check("(proxy) its row names the upstream", until(lambda: browser.text(row) == f"→ {upstream.base}", 5),
                 browser.count(row) and browser.text(row))
    browser.click_row("/v1/not-stubbed?probe=proxy")
    checks.check("(proxy) its detail says forwarded and what the upstream answered",
                 until(lambda: f"forwarded to {upstream.base}" in browser.text("#detail") and "upstream answered 200" in browser.text("#detail"), 5),
                 browser.text("#detail")[:300])
    checks.check("(proxy) no near-miss report for a forwarded request", "No stub matched" not in browser.text("#detail"))


def streams_mode(checks, browser, server, screenshots):
    """Issue 32: a WebSocket's messages both ways and an event stream's events, in the list and
    the details as they happen (no reload, no click again), near misses for a message no rule
    matched, how each ended, and the bound on a long stream."""
    browser.open(server.base + "/__admin/ui")
    checks.check("(streams) the page connects", until(lambda: browser.text("#connection") == "live", 10))
    streams_websocket(checks, browser, server, screenshots)
    streams_events(checks, browser, server)
    streams_bound(checks, browser, server)
    browser.click("#tab-stubs")
    checks.check("(streams) the Stubs area sums up a WebSocket stub and an events stub",
                 until(lambda: "WebSocket: 1 on open, 3 rules, unmatched: ignore" in browser.text("#stub-table")
                       and "5 events, then close" in browser.text("#stub-table"), 5),
                 browser.text("#stub-table")[:400])
    browser.click("#tab-requests")
    checks.check("(streams) no errors in the console", not browser.console_errors(), browser.console_errors())


STREAM_ITEMS = "#detail .stream .stream-item"


def streams_websocket(checks, browser, server, screenshots):
    from websockets.sync.client import connect
    items = STREAM_ITEMS
    badge = "#request-list .row .stream-badge"
    with connect(server.base.replace("http://", "ws://") + "/v1/chat") as socket:
        hello = socket.recv(timeout=5)
        checks.check("(streams) the upgrade's row says WebSocket, open, and counts the greeting",
                     until(lambda: browser.text(badge) == "WebSocket · 1 · live", 5), browser.text(badge))
        browser.click_row("/v1/chat")
        checks.check("(streams) the details list the greeting sent",
                     until(lambda: browser.count(items) == 1 and hello in browser.text(items + ".sent"), 5),
                     browser.text("#detail .stream"))
        socket.send('{"type": "ping"}')
        pong = socket.recv(timeout=5)
        socket.send('{"type": "shout", "text": "hi"}')
        checks.check("(streams) messages both ways appear in the open details as they happen",
                     until(lambda: browser.count(items) == 4, 5), browser.text("#detail .stream"))
        directions = browser.js("""return [...document.querySelectorAll(arguments[0])]
            .map(e => e.querySelector('.direction').textContent)""", items)
        checks.check("(streams) in order: sent, received, sent, received with no rule matched",
                     directions == ["sent", "received", "sent", "received, no rule matched"], directions)
        checks.check("(streams) the pong is shown as sent", pong in browser.text("#detail .stream-item:nth-child(3) .text"))
        near_miss = browser.text("#detail .stream-item.unmatched .stream-nearmiss")
        checks.check("(streams) the unmatched message shows each rule's near-miss line",
                     'onMessage[0]: body.type expected "ping", got "shout"' in near_miss, near_miss)
        times = browser.js("return [...document.querySelectorAll(arguments[0])].map(e => e.querySelector('.at').textContent)", items)
        checks.check("(streams) each item has its time from the start", all(re.fullmatch(r"\+\d+ ms", t) for t in times), times)
        checks.check("(streams) the open socket says so", browser.text("#detail .stream-state") == "open: live",
                     browser.text("#detail .stream-state"))
        if screenshots:
            browser.screenshot(os.path.join(screenshots, "inspector-streams-light.png"))
    checks.check("(streams) the details say how it ended",
                 until(lambda: browser.text("#detail .stream-state").startswith("ended: closed: 1000"), 5),
                 browser.text("#detail .stream-state"))
    checks.check("(streams) the row is no longer live", until(lambda: browser.text(badge) == "WebSocket · 5", 5), browser.text(badge))


def streams_events(checks, browser, server):
    """The tracking example: four status events and a comment over 1.5 s."""
    items = STREAM_ITEMS
    reader = threading.Thread(target=lambda: http(server.base, "/v1/orders/42/tracking"))
    reader.start()
    target = "/v1/orders/42/tracking"
    checks.check("(streams) an event stream's row appears while it runs",
                 until(lambda: browser.js("""return [...document.querySelectorAll('#request-list .row')]
                     .some(r => r.querySelector('.target').textContent === arguments[0] && r.textContent.includes('live'))""",
                                          target), 5))
    browser.click_row(target)
    checks.check("(streams) its details open while it runs", until(lambda: browser.text("#detail h2") == f"GET {target}", 5))
    counts_seen = set()

    def finished():
        counts_seen.add(browser.count(items))
        return browser.text("#detail .stream-state").startswith("ended:")
    checks.check("(streams) the events appear in the open details one by one, then the end",
                 until(finished, 10, interval=0.02) and len(counts_seen - {0}) > 1, sorted(counts_seen))
    reader.join(10)
    checks.check("(streams) all five are listed with the reason it ended",
                 until(lambda: browser.count(items) == 5
                       and browser.text("#detail .stream-state") == "ended: the stream ended after its last event", 5),
                 (browser.count(items), browser.text("#detail .stream-state")))
    checks.check("(streams) an event is shown as written on the wire", "event: status" in browser.text(items), browser.text(items))


def streams_bound(checks, browser, server):
    """300 messages each way, 600 items: the journal keeps the first 100 and the latest 400."""
    from websockets.sync.client import connect
    items = STREAM_ITEMS
    with connect(server.base.replace("http://", "ws://") + "/v1/echo-socket") as echo:
        for n in range(300):
            echo.send(f"m{n}")
            echo.recv(timeout=5)
        checks.check("(streams) the long stream's row is listed", until(lambda: browser.js(
            "return [...document.querySelectorAll('#request-list .row .target')].some(t => t.textContent === arguments[0])",
            "/v1/echo-socket"), 5))
        browser.click_row("/v1/echo-socket")
        omitted = "#detail .stream .stream-omitted"
        checks.check("(streams) a long stream says how many items it did not keep, where",
                     until(lambda: browser.text(omitted).startswith("… 100 more not kept"), 5), browser.text(omitted))
        before_gap = browser.js("""const gap = document.querySelector(arguments[0]);
            return gap ? gap.previousElementSibling.querySelector('.text').textContent : null""", omitted)
        checks.check("(streams) the kept items are the first 100 and the latest 400",
                     browser.count(items) == 500 and before_gap == "m49", (browser.count(items), before_gap))

def forward_proxy_mode(checks, browser, server, upstream, ca):
    """Issue 37: a blind tunnel is one row that says so; an intercepted request shows its host."""
    import socket, subprocess
    base = server.base
    browser.open(base + "/__admin/ui")
    checks.check("(forward proxy) the page connects", until(lambda: browser.text("#connection") == "live", 10))
    authority = upstream.base[len("http://"):]
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as raw:
        raw.sendall(f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n".encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += raw.recv(1)
        raw.sendall(f"GET /through HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while chunk := raw.recv(4096):
            answer += chunk
    checks.check("(forward proxy) a blind tunnel carries the request to its host",
                 head.startswith(b"HTTP/1.1 200") and b'"from":"upstream"' in answer, (head, answer[:80]))
    row = "#request-list .row .proxied"
    checks.check("(forward proxy) the tunnel's row says it is a blind tunnel",
                 until(lambda: browser.text(row) == "tunnel: blind", 5), browser.count(row) and browser.text(row))
    browser.click_row(authority)
    checks.check("(forward proxy) its detail gives the tunnel's host, state and bytes",
                 until(lambda: f"{authority}, closed" in browser.text("#detail") and "bytes sent" in browser.text("#detail"), 5),
                 browser.text("#detail")[:300])
    curl = subprocess.run(["curl", "-s", "--max-time", "20", "-x", base, "--cacert", ca,
                           "https://api.example.com/health"], capture_output=True, text=True)
    checks.check("(forward proxy) an intercepted https request is answered by a stub", curl.returncode == 0 and "ok" in curl.stdout,
                 (curl.returncode, curl.stdout[:120], curl.stderr[:120]))
    target = "https://api.example.com:443/health"
    checks.check("(forward proxy) an intercepted request's row shows its host",
                 until(lambda: target in browser.js("return [...document.querySelectorAll('#request-list .row .target')].map(n => n.textContent)"), 5))


if __name__ == "__main__":
    sys.exit(main())
