#!/usr/bin/env python3
"""The release tarball on a machine without Swift: the binary from scripts/release, run in a
private mount namespace with an empty directory over the Swift toolchain (as root: unshare -m).

    python3 Tests/release/release_test.py [--tarball PATH]   (default: runs scripts/release)

Checks the SHA-256 file, that ldd lists no Swift, Foundation, Dispatch or ICU library, that the
hiding works (the debug build cannot start there), and then, with the toolchain hidden:
--version, validate on the bundled stubs, serving them with the Dockerfile's entry command, and
an https upstream through --proxy. The formula, the workflow and the Dockerfile, which cannot
run here, are checked for what they must say. Prints the binary's size
and start-up time for docs/install.md, one line per check and "N passed, N failed".
"""
import argparse, glob, hashlib, json, os, re, shutil, subprocess, sys, tarfile, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from script_support import ROOT, Checks, http  # noqa: E402

HTTPS_UPSTREAM = r"""
import http.server, ssl, sys
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        body = b'{"from": "https upstream"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def toolchain_folders():
    """Every folder that holds the Swift runtime's shared libraries (hidden in the namespace)."""
    folders = set()
    swift = shutil.which("swift")
    if swift:
        folders.add(os.path.dirname(os.path.dirname(os.path.realpath(swift))))  # .../usr
    for library in glob.glob("/usr/lib/swift/**/libswiftCore.so", recursive=True):
        folders.add(os.path.dirname(library))
    return sorted(folders)


def hidden(command):
    """The command in a private mount namespace with an empty tmpfs over each toolchain folder."""
    mounts = " && ".join(f"mount -t tmpfs tmpfs '{folder}'" for folder in toolchain_folders())
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", f'{mounts} && exec "$@"', "sh", *command]


def make_certificates(folder):
    """A CA and a certificate for 127.0.0.1 and localhost signed by it (the openssl tool)."""
    def run(*arguments):
        subprocess.run(["openssl", *arguments], cwd=folder, check=True, capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
        "-subj", "/CN=release test CA")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost")
    with open(os.path.join(folder, "san.cnf"), "w") as f:
        f.write("subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
    run("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
        "-days", "2", "-extfile", "san.cnf")


def container_command(stubs):
    """The Dockerfile's ENTRYPOINT and CMD, with the image's /stubs as the tarball's folder and
    port 0 for 8080 (the image cannot be built here; its binary and command can be run)."""
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        text = f.read()
    entrypoint = json.loads(re.search(r"^ENTRYPOINT (\[.*\])$", text, re.M).group(1))
    command = json.loads(re.search(r"^CMD (\[.*\])$", text, re.M).group(1))
    return [stubs if part == "/stubs" else "0" if part == "8080" else part for part in entrypoint[1:] + command]


def packaging_agrees(checks, version):
    """What can be checked here of the formula, the workflow and the image without running them."""
    with open(os.path.join(ROOT, "packaging", "homebrew", "stubserver.rb")) as f:
        formula = f.read()
    checks.check("the Homebrew formula builds the tag of this version and tests validate",
                 f'tag: "v{version}"' in formula and "stubserver validate" in formula and "test do" in formula)
    with open(os.path.join(ROOT, "Dockerfile")) as f:
        dockerfile = f.read()
    for part in ["USER stubserver", "EXPOSE 8080", "HEALTHCHECK", "/__admin/health", "--static-swift-stdlib", "libssl3", "ca-certificates"]:
        checks.check(f"the Dockerfile has {part}", part in dockerfile)
    try:
        import yaml
    except ImportError:
        print("skipped: no PyYAML to read the workflow")
        return
    with open(os.path.join(ROOT, ".github", "workflows", "ci.yml")) as f:
        workflow = yaml.safe_load(f)
    jobs = workflow.get("jobs", {})
    def commands(job):
        return " ".join(step.get("run", "") for step in jobs.get(job, {}).get("steps", []))
    checks.check("the workflow tests on Linux and macOS, makes the tarball, and releases tags",
                 "swift test" in commands("linux") and "scripts/release" in commands("linux")
                 and "swift test" in commands("macos") and "gh release create" in commands("release"))
    build_image = re.search(r"^FROM (\S+) AS build$", dockerfile, re.M).group(1)
    checks.check("the workflow builds in the image the Dockerfile builds in", jobs["linux"].get("container") == build_image,
                 (jobs["linux"].get("container"), build_image))


def serve(command):
    """Starts a server; (process, base URL, seconds until its ready line)."""
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = process.stdout.readline()
    elapsed = time.monotonic() - started
    match = re.match(r"stubserver listening on http://\S+:(\d+) \(", ready)
    if not match:
        process.kill()
        return None, f"no ready line: {ready!r} {process.stderr.read()[:500]!r}", elapsed
    return process, f"http://127.0.0.1:{match.group(1)}", elapsed


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tarball", help="a tarball scripts/release made (default: make one now)")
    args = parser.parse_args()
    checks = Checks()
    if os.geteuid() != 0 or not shutil.which("unshare"):
        print("skipped: hiding the toolchain needs root and unshare (a private mount namespace)")
        print("0 passed, 0 failed")
        return 0
    tarball = args.tarball or subprocess.run([os.path.join(ROOT, "scripts", "release")], cwd=ROOT, check=True,
                                             capture_output=True, text=True).stdout.strip().splitlines()[-1]
    tarball = os.path.abspath(os.path.join(ROOT, tarball))
    with open(tarball + ".sha256") as f:
        expected = f.read().split()[0]
    with open(tarball, "rb") as f:
        checks.check("the .sha256 file matches the tarball", hashlib.sha256(f.read()).hexdigest() == expected)

    scratch = tempfile.mkdtemp(prefix="release-test-")
    processes = []
    try:
        with tarfile.open(tarball) as archive:
            archive.extractall(scratch, filter="data")
        name = os.path.basename(tarball)[: -len(".tar.gz")]
        folder = os.path.join(scratch, name)
        binary = os.path.join(folder, "stubserver")
        checks.check("the tarball holds the binary, LICENSE, README and the example stubs",
                     all(os.path.exists(os.path.join(folder, part)) for part in ["stubserver", "LICENSE", "README.md", "stubs"]))
        needed = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
        checks.check("ldd lists the C library only: no Swift, Foundation, Dispatch, ICU or C++ library",
                     not re.search(r"swift|Foundation|dispatch|BlocksRuntime|icu|stdc\+\+|gcc_s", needed), needed)

        # The hiding works: a build that needs the toolchain's libraries cannot start there.
        debug = os.path.join(subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True,
                                            text=True).stdout.strip(), "stubserver")
        if os.path.exists(debug):
            dynamic = subprocess.run(hidden([debug, "--version"]), capture_output=True, text=True)
            checks.check("with the toolchain hidden, the debug build cannot start (the hiding works)",
                         dynamic.returncode != 0 and "libswift" in dynamic.stderr, (dynamic.returncode, dynamic.stderr[:200]))

        version = subprocess.run(hidden([binary, "--version"]), capture_output=True, text=True)
        tarball_version = name.split("-")[1]
        checks.check("--version prints the version the tarball names", version.stdout.strip() == f"stubserver {tarball_version}",
                     (version.stdout, version.stderr[:300]))
        validate = subprocess.run(hidden([binary, "validate", "--dir", os.path.join(folder, "stubs")]), capture_output=True, text=True)
        checks.check("validate passes on the bundled stubs", validate.returncode == 0, (validate.stdout[-300:], validate.stderr[-300:]))

        # The container's entry command, read from the Dockerfile (port 0 here, 8080 there).
        process, base, startup = serve(hidden([binary, *container_command(os.path.join(folder, "stubs"))]))
        checks.check("it serves the bundled stubs as the container does", process is not None, base)
        if process:
            processes.append(process)
            status, _, text = http(base, "/v1/users/1", headers={"Authorization": "Bearer abc"})
            checks.check("a bundled stub answers", status == 200 and "id" in text, (status, text[:200]))
            checks.check("the admin API asks for the printed token (listening beyond loopback)",
                         http(base, "/__admin/requests")[0] == 401)
            checks.check("the health check answers without the token", http(base, "/__admin/health")[0] == 200)

        if shutil.which("openssl"):
            make_certificates(scratch)
            upstream = subprocess.Popen([sys.executable, "-c", HTTPS_UPSTREAM, os.path.join(scratch, "server.pem"),
                                         os.path.join(scratch, "server.key")], stdout=subprocess.PIPE, text=True)
            processes.append(upstream)
            port = upstream.stdout.readline().strip()
            empty = os.path.join(scratch, "empty")
            os.makedirs(empty)
            proxy, proxy_base, _ = serve(hidden([binary, "--dir", empty, "--port", "0", "--no-watch",
                                                 "--proxy", f"https://localhost:{port}", "--proxy-ca", os.path.join(scratch, "ca.pem")]))
            checks.check("it starts as an https proxy", proxy is not None, proxy_base)
            if proxy:
                processes.append(proxy)
                status, _, text = http(proxy_base, "/anything")
                checks.check("it reaches an https upstream (libssl loaded at run time)",
                             status == 200 and "https upstream" in text, (status, text[:300]))
        else:
            print("skipped: no openssl tool to make the https upstream's certificate")

        packaging_agrees(checks, tarball_version)
        size = os.path.getsize(binary)
        print(f"figures: binary {size / 1024 / 1024:.1f} MiB stripped; ready line after {startup * 1000:.0f} ms "
              f"(namespace set-up included); needs: {' '.join(line.split()[0] for line in needed.splitlines())}", flush=True)
    finally:
        for process in processes:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        shutil.rmtree(scratch, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
