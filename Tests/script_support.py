"""What the Python test scripts (Tests/browser, Tests/clients) share: a check that prints one
line, the closing "N passed, N failed" line, the binary to run, and a plain HTTP exchange."""
import os, subprocess, urllib.error, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Checks:
    def __init__(self):
        self.passed, self.failed = 0, 0

    def check(self, name, condition, detail=""):
        if condition:
            self.passed += 1
            print(f"ok   - {name}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL - {name}{': ' + str(detail) if detail else ''}", flush=True)
        return condition

    def finish(self):
        """Prints the closing line; the exit status: 1 if any check failed."""
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 1 if self.failed else 0


def add_binary_argument(parser):
    parser.add_argument("--binary", help="the stubserver binary (default: the debug build, swift build --show-bin-path)")


def binary(args):
    """--binary, or the debug build's stubserver."""
    if args.binary:
        return os.path.abspath(args.binary)
    folder = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    return os.path.join(folder, "stubserver")


def http(base, path, method="GET", headers=None, body=None):
    """(status, headers, text) for a request; (0, {}, error) when the connection breaks."""
    request = urllib.request.Request(base + path, method=method, headers=headers or {},
                                     data=body.encode() if isinstance(body, str) else body)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8", "replace")
    except (ConnectionError, urllib.error.URLError, OSError) as error:
        return 0, {}, str(error)
