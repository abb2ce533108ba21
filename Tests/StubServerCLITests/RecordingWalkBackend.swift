/// The backend of `RecordingWalkTests`: a small Flask-style app written with Python's standard
/// library (no packages to install), run with `python3`. It behaves as such apps do: a session
/// cookie set at login and deleted at logout, JSON with a trailing newline (as `jsonify` writes
/// it), absolute `Link` and `Location` URLs built from the `Host` the request named, a CSV it
/// always compresses, a download. It prints `PORT n` once it listens.
enum RecordingWalkBackend {
    static let csv = (1...200).map { "\($0),item \($0),\($0 * 3)" }.joined(separator: "\n") + "\n"

    static let script = #"""
        import gzip, http.server, json, secrets, sys

        sessions = set()
        CSV = sys.argv[1].encode()

        class App(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def base(self):
                return "http://" + self.headers["Host"]

            def cookie(self):
                for pair in (self.headers.get("Cookie") or "").split(";"):
                    name, _, value = pair.strip().partition("=")
                    if name == "session":
                        return value
                return None

            def send(self, status, body, content_type="application/json", headers=()):
                if not isinstance(body, bytes):
                    body = (json.dumps(body, separators=(",", ":")) + "\n").encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            def do_POST(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                if self.path == "/api/login":
                    if json.loads(body or b"{}").get("password") != "pw":
                        return self.send(401, {"error": "wrong password"})
                    token = secrets.token_hex(16)
                    sessions.add(token)
                    cookie = "session=" + token + "; Path=/; HttpOnly; Expires=Wed, 01 Jan 2031 00:00:00 GMT"
                    return self.send(200, {"user": "ana"}, headers=[("Set-Cookie", cookie)])
                if self.path == "/api/logout":
                    sessions.discard(self.cookie())
                    cleared = "session=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"
                    return self.send(200, {"ok": True}, headers=[("Set-Cookie", cleared)])
                self.send(404, {"error": "not found"})

            def do_GET(self):
                path, _, query = self.path.partition("?")
                if path == "/api/health":
                    return self.send(200, {"ok": True})
                if path == "/api/me":
                    if self.cookie() in sessions:
                        return self.send(200, {"user": "ana", "roles": ["reader"]})
                    return self.send(401, {"error": "not signed in"})
                if path == "/api/items":
                    page = int(query.partition("page=")[2] or 1)
                    items = [{"id": n, "name": "item %d" % n} for n in range(page * 3 - 2, page * 3 + 1)]
                    links = []
                    if page < 3:
                        links.append("<%s/api/items?page=%d>; rel=\"next\"" % (self.base(), page + 1))
                    links.append("<%s/api/items?page=1>; rel=\"first\"" % self.base())
                    return self.send(200, {"page": page, "items": items}, headers=[("Link", ", ".join(links))])
                if path == "/api/report.csv":
                    return self.send(200, gzip.compress(CSV), "text/csv", [("Content-Encoding", "gzip")])
                if path == "/old-report":
                    return self.send(302, b"", "text/plain", [("Location", self.base() + "/api/report.csv")])
                if path == "/download":
                    data = bytes((n * 7 + 3) % 256 for n in range(3000))
                    disposition = ("Content-Disposition", "attachment; filename=\"data.bin\"")
                    return self.send(200, data, "application/octet-stream", [disposition])
                self.send(404, {"error": "not found"})

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), App)
        print("PORT %d" % server.server_address[1], flush=True)
        server.serve_forever()
        """#
}
