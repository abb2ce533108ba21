#!/usr/bin/env python3
"""WireMock's own Python admin client (PyPI `wiremock`) against the stubserver binary, serving a
WireMock folder: the flow a team's existing test suite runs, with the admin API's protection on
(it sends JSON and no Origin, so nothing it does is refused), and again with --admin-token.

    python3 Tests/clients/wiremock_client_test.py [--binary PATH]

Prints one line per check and "N passed, N failed"; exits 1 if any failed.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, urllib.error, urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from script_support import Checks, add_binary_argument, binary as binary_path  # noqa: E402


def start(binary, folder, *extra):
    """stubserver on port 0; ready when its first line says so."""
    process = subprocess.Popen([binary, "--wiremock", folder, "--port", "0", "--no-watch", "--log", "quiet", *extra],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ready = process.stdout.readline()
    match = re.match(r"stubserver listening on (http://\S+) \(", ready)
    if not match:
        process.kill()
        raise RuntimeError(f"stubserver did not start: {ready!r}")
    return process, match.group(1)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


def flow(checks, base, label, token=None):
    from wiremock.constants import Config
    from wiremock.resources.mappings import Mapping, MappingRequest, MappingResponse, HttpMethods
    from wiremock.resources.mappings.resource import Mappings
    from wiremock.resources.requests.resource import Requests
    from wiremock.resources.near_misses import NearMissMatchPatternRequest
    from wiremock.resources.scenarios.resource import Scenarios

    Config.base_url = base + "/__admin"
    Config.headers = dict(Config.headers)
    if token:
        Config.headers["Authorization"] = f"Bearer {token}"
    else:
        Config.headers.pop("Authorization", None)

    mapping = Mappings.create_mapping(Mapping(
        priority=1,
        request=MappingRequest(method=HttpMethods.GET, url="/client/hello"),
        response=MappingResponse(status=200, body='{"hello":"client"}', headers={"Content-Type": "application/json"}),
        persistent=False,
    ))
    checks.check(f"({label}) the client creates a mapping", bool(mapping.id), mapping)
    status, body = get(base + "/client/hello")
    checks.check(f"({label}) the mapping answers", status == 200 and body == '{"hello":"client"}', (status, body))
    count = Requests.get_matching_request_count(NearMissMatchPatternRequest(url="/client/hello", method="GET"))
    checks.check(f"({label}) the client counts the request", count.count == 1, count)
    found = Requests.get_matching_requests(NearMissMatchPatternRequest(url="/client/hello", method="GET"))
    checks.check(f"({label}) the client finds the request", len(found.requests) == 1, found)
    listed = Mappings.retrieve_all_mappings()
    checks.check(f"({label}) the client lists the mapping", any(m.id == mapping.id for m in listed.mappings))
    mapping.response = MappingResponse(status=201, body="changed")
    Mappings.update_mapping(mapping)
    status, body = get(base + "/client/hello")
    checks.check(f"({label}) the client updates the mapping", (status, body) == (201, "changed"), (status, body))
    Requests.reset_request_journal()
    count = Requests.get_matching_request_count(NearMissMatchPatternRequest(url="/client/hello", method="GET"))
    checks.check(f"({label}) the client resets the journal", count.count == 0, count)
    Scenarios.reset_all_scenarios()
    Mappings.delete_mapping(mapping.id)
    try:
        status = get(base + "/client/hello")[0]
    except urllib.error.HTTPError as error:
        status = error.code
    checks.check(f"({label}) the client deletes the mapping", status == 404, status)
    Mappings.delete_all_mappings()
    checks.check(f"({label}) the client deletes every mapping", Mappings.retrieve_all_mappings().mappings in ([], None))


def main():
    parser = argparse.ArgumentParser()
    add_binary_argument(parser)
    args = parser.parse_args()
    binary = binary_path(args)
    checks = Checks()
    scratch = tempfile.mkdtemp(prefix="wiremock-client-")
    os.makedirs(os.path.join(scratch, "mappings"))
    try:
        for label, extra, token in [("open", (), None), ("token", ("--admin-token", "client-t0ken"), "client-t0ken")]:
            process, base = start(binary, scratch, *extra)
            try:
                flow(checks, base, label, token)
            except Exception as error:  # a client error is a failed check, with what it said
                checks.check(f"({label}) the client's flow runs", False, repr(error))
            finally:
                process.terminate()
                process.wait(timeout=10)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
