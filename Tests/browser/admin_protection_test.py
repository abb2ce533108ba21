#!/usr/bin/env python3
"""What a web page in the developer's browser can do to the admin API: headless Chromium
(Debian's chromium and chromium-driver, selenium from PyPI) against the built stubserver.

    python3 Tests/browser/admin_protection_test.py [--binary PATH]

Two attackers, each a real page in the browser:
- a page served from another local port (another origin) tries fetch with no-cors and with
  cors, a form post, a text/plain form that spells JSON, and <img> tags against the admin API;
- a page whose host name is rebound to 127.0.0.1 (Chromium's --host-resolver-rules stands in
  for the attacker's DNS) reads the admin API as its own origin.
None of them changes state or reads data, and each attempt that reached the server is in the
journal as refused. Prints one line per check and "N passed, N failed"; exits 1 if any failed.
"""
import argparse, json, os, sys, tempfile, shutil, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from inspector_support import Browser, StubServer, until  # noqa: E402
from script_support import Checks, add_binary_argument, binary as binary_path, http  # noqa: E402

REBOUND = "attacker.test"

# The attacker's page: every way a page can reach another origin without its consent. It
# writes what it could read into the page, for the test to look at.
ATTACK_PAGE = """<!doctype html>
<html><body>
<pre id="out">running</pre>
<iframe name="sink" style="display:none"></iframe>
<form id="reset" method="POST" action="ADMIN/__admin/reset" target="sink">
  <input name="a" value="b">
</form>
<form id="json" method="POST" action="ADMIN/__admin/stubs" enctype="text/plain" target="sink">
  <input name='{"request": {"path": "/pwn-form"}, "response": {"body": "owned", "x": "' value='"}}'>
</form>
<img src="ADMIN/__admin/requests">
<img src="ADMIN/__admin/ui/app.js">
<script>
const admin = "ADMIN";
const results = {};
async function attempt(name, run) {
  try { results[name] = await run(); } catch (error) { results[name] = "blocked: " + error.name; }
}
(async () => {
  await attempt("noCorsStub", () => fetch(admin + "/__admin/stubs", {method: "POST", mode: "no-cors",
    headers: {"Content-Type": "text/plain"},
    body: JSON.stringify({request: {path: "/pwn"}, response: {body: "attacker's body"}})}).then(r => "opaque " + r.type));
  await attempt("noCorsReset", () => fetch(admin + "/__admin/reset", {method: "POST", mode: "no-cors"}).then(r => "opaque " + r.type));
  await attempt("corsRead", () => fetch(admin + "/__admin/requests").then(r => r.text()));
  await attempt("corsJSON", () => fetch(admin + "/__admin/stubs", {method: "POST", headers: {"Content-Type": "application/json"},
    body: JSON.stringify({request: {path: "/pwn-cors"}, response: {}})}).then(r => "status " + r.status));
  document.getElementById("reset").submit();
  await new Promise(resolve => setTimeout(resolve, 300));
  document.getElementById("json").submit();
  await new Promise(resolve => setTimeout(resolve, 300));
  document.getElementById("out").textContent = JSON.stringify(results);
})();
</script>
</body></html>
"""

# The rebound page: same origin as the server in the browser's eyes (the name resolves to
# 127.0.0.1 and the port is the server's), so the browser lets it read what it gets.
REBOUND_PAGE = """<!doctype html>
<html><body><pre id="out">running</pre>
<script>
(async () => {
  const results = {};
  for (const path of ["/__admin/requests", "/__admin/stubs", "/__admin/ui/session"]) {
    const response = await fetch(path);
    results[path] = {status: response.status, body: await response.text()};
  }
  const reset = await fetch("/__admin/reset", {method: "POST", headers: {"Content-Type": "application/json"}, body: "{}"});
  results.reset = reset.status;
  document.getElementById("out").textContent = JSON.stringify(results);
})();
</script></body></html>
"""


class AttackerSite:
    """The attacker's pages on a port of their own: another origin than the server's."""

    def __init__(self, admin_base):
        page = ATTACK_PAGE.replace("ADMIN", admin_base).encode()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, *_):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()


def journal(base):
    return json.loads(http(base, "/__admin/requests")[2])["requests"]


def cross_site(checks, browser, server):
    base = server.base
    http(base, "/marker")  # what a reset would clear
    site = AttackerSite(base)
    try:
        browser.open(site.base + "/")
        done = until(lambda: browser.text("#out") != "running", 10)
        results = json.loads(browser.text("#out")) if done else {}
    finally:
        site.close()
    checks.check("the attacker's page ran every attempt", done and len(results) == 4, browser.text("#out"))
    checks.check("a cors fetch cannot read the journal", str(results.get("corsRead", "")).startswith("blocked"), results.get("corsRead"))
    checks.check("a JSON post from another origin is stopped at the preflight",
                 str(results.get("corsJSON", "")).startswith("blocked"), results.get("corsJSON"))
    for path in ["/pwn", "/pwn-form", "/pwn-cors"]:
        checks.check(f"no stub was added for {path}", http(base, path)[0] == 404)
    entries = journal(base)
    checks.check("nothing was reset (the marker request is still journaled)", any(e["path"] == "/marker" for e in entries))
    refused = [e for e in entries if e.get("refused")]
    refused_posts = {(e["method"], e["path"]) for e in refused if e["method"] == "POST"}
    checks.check("the no-cors, form and text/plain posts are journaled as refused",
                 {("POST", "/__admin/stubs"), ("POST", "/__admin/reset")} <= refused_posts, refused_posts)
    checks.check("each refusal names the attacker's origin",
                 all(site.base in e["refused"] for e in refused if e["method"] == "POST"), [e["refused"] for e in refused])
    images = [e for e in entries if e["path"] in ("/__admin/requests", "/__admin/ui/app.js") and e.get("refused")]
    checks.check("the <img> GETs were not refused (reading is safe: the page gets an opaque image error)", not images, images)


def rebinding(checks, browser, server):
    base = server.base
    http(base, "/secret-call", headers={"Authorization": "Bearer the-app-token"})
    stub = {"request": {"path": "/rebound.html"}, "response": {"headers": {"Content-Type": "text/html"}, "body": REBOUND_PAGE}}
    status = http(base, "/__admin/stubs", "POST", {"Content-Type": "application/json"}, json.dumps(stub))[0]
    checks.check("(rebinding) the page is served by the server itself, as after a rebinding", status == 201, status)
    browser.open(f"http://{REBOUND}:{server.port}/rebound.html")
    done = until(lambda: browser.text("#out") != "running", 10)
    results = json.loads(browser.text("#out")) if done else {}
    checks.check("(rebinding) the page ran", done, browser.text("#out"))
    for path in ["/__admin/requests", "/__admin/stubs", "/__admin/ui/session"]:
        answer = results.get(path, {})
        checks.check(f"(rebinding) {path} answers 403 to the rebound name", answer.get("status") == 403, answer)
        checks.check(f"(rebinding) {path} gives the page no data", "the-app-token" not in answer.get("body", "")
                     and "/secret-call" not in answer.get("body", ""))
    checks.check("(rebinding) a reset is refused", results.get("reset") == 403, results.get("reset"))
    entries = journal(base)
    checks.check("(rebinding) the journal was not reset", any(e["path"] == "/secret-call" for e in entries))
    checks.check("(rebinding) the attempts are journaled as refused for their Host",
                 any(f"unknown Host {REBOUND}" in (e.get("refused") or "") for e in entries),
                 [e.get("refused") for e in entries if e.get("refused")])


def main():
    parser = argparse.ArgumentParser()
    add_binary_argument(parser)
    args = parser.parse_args()
    binary = binary_path(args)
    checks = Checks()
    scratch = tempfile.mkdtemp(prefix="admin-protection-")
    os.makedirs(os.path.join(scratch, "stubs"))
    browser = Browser(arguments=(f"--host-resolver-rules=MAP {REBOUND} 127.0.0.1",))
    try:
        with StubServer(binary, "stubs", cwd=scratch) as server:
            cross_site(checks, browser, server)
        with StubServer(binary, "stubs", cwd=scratch) as server:
            rebinding(checks, browser, server)
    finally:
        browser.quit()
        shutil.rmtree(scratch, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
