#!/usr/bin/env python3
"""The bundled stream examples (stubs/) through real client libraries, against the stubserver
binary: the `websockets` client on the chat, the official `openai` client on the
chat-completions stub (streaming and not), and curl on the order tracking; then the chat and
the tracking again through a second stubserver with `--proxy` in front of the first (the
WebSocket passed through both ways, the events one by one, both journaled by the proxy).
PyPI packages: websockets, openai (.ci/run installs them when missing).

    python3 Tests/clients/streams_client_test.py [--binary PATH]

Prints one line per check and "N passed, N failed"; exits 1 if any failed.
"""
import argparse, asyncio, json, os, re, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from script_support import ROOT, Checks, add_binary_argument, binary as binary_path, http  # noqa: E402


def start(binary, arguments=None):
    """stubserver on the bundled stubs (or `arguments`), port 0; ready when its first line says so."""
    arguments = arguments or ["--dir", os.path.join(ROOT, "stubs")]
    process = subprocess.Popen([binary, *arguments, "--port", "0", "--no-watch", "--log", "quiet"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    ready = process.stdout.readline()
    match = re.match(r"stubserver listening on (http://\S+) \(", ready)
    if not match:
        process.kill()
        raise RuntimeError(f"stubserver did not start: {ready!r}")
    return process, match.group(1)


async def chat(checks, base):
    import websockets
    url = base.replace("http://", "ws://") + "/v1/chat"
    async with websockets.connect(url) as socket:
        hello = json.loads(await asyncio.wait_for(socket.recv(), 5))
        checks.check("websockets: the chat says hello on open", hello.get("type") == "hello", hello)
        await socket.send(json.dumps({"type": "ping"}))
        pong = json.loads(await asyncio.wait_for(socket.recv(), 5))
        checks.check("websockets: a ping message gets a pong message", pong == {"type": "pong"}, pong)
        await socket.send(json.dumps({"type": "say", "text": "hi \"there\""}))
        said = json.loads(await asyncio.wait_for(socket.recv(), 5))
        checks.check("websockets: the reply template sees the message", said.get("text") == 'hi "there"', said)
        replies = [json.loads(await asyncio.wait_for(socket.recv(), 5)) for _ in range(2)]
        checks.check("websockets: delayed replies follow in order", [r.get("type") for r in replies] == ["typing", "said"], replies)
        latency = await socket.ping()
        started = time.monotonic()
        await asyncio.wait_for(latency, 5)
        checks.check("websockets: a protocol ping is answered", time.monotonic() - started < 5)
        status, _, listed = http(base, "/__admin/websockets")
        connections = json.loads(listed).get("websockets", []) if status == 200 else []
        checks.check("admin: the open connection is listed", len(connections) == 1 and connections[0]["path"] == "/v1/chat", listed)
        status, _, sent = http(base, "/__admin/websockets/chat/send", method="POST",
                               headers={"Content-Type": "application/json"}, body=json.dumps({"type": "notice", "text": "pushed"}))
        pushed = json.loads(await asyncio.wait_for(socket.recv(), 5))
        checks.check("admin: a push reaches the open connection", status == 200 and pushed.get("type") == "notice", (sent, pushed))
        await socket.send("bye")
        try:
            await asyncio.wait_for(socket.recv(), 5)
            closed = None
        except websockets.ConnectionClosed as error:
            closed = error
        code = closed.rcvd.code if closed is not None and closed.rcvd else None
        checks.check("websockets: \"bye\" closes with 1000", code == 1000, closed)


async def proxied_chat(checks, upstream, proxy):
    """The chat through `--proxy`: the upgrade forwarded, messages both ways, pushes from the
    upstream's admin API, the upstream's close code; the proxy's journal holds the messages."""
    import websockets
    async with websockets.connect(proxy.replace("http://", "ws://") + "/v1/chat") as socket:
        hello = json.loads(await asyncio.wait_for(socket.recv(), 5))
        checks.check("proxy: the upstream's hello comes through", hello.get("type") == "hello", hello)
        await socket.send(json.dumps({"type": "say", "text": "through"}))
        replies = [json.loads(await asyncio.wait_for(socket.recv(), 5)) for _ in range(3)]
        checks.check("proxy: the upstream's replies come through in order",
                     [r.get("type") for r in replies] == ["said", "typing", "said"] and replies[0].get("text") == "through", replies)
        latency = await socket.ping()
        await asyncio.wait_for(latency, 5)
        checks.check("proxy: a protocol ping reaches the upstream and its pong comes back", True)
        status, _, _ = http(upstream, "/__admin/websockets/chat/send", method="POST",
                            headers={"Content-Type": "application/json"}, body=json.dumps({"type": "notice"}))
        pushed = json.loads(await asyncio.wait_for(socket.recv(), 5))
        checks.check("proxy: a push from the upstream's admin API comes through", status == 200 and pushed.get("type") == "notice", pushed)
        await socket.send("bye")
        try:
            await asyncio.wait_for(socket.recv(), 5)
            closed = None
        except websockets.ConnectionClosed as error:
            closed = error
        code = closed.rcvd.code if closed is not None and closed.rcvd else None
        checks.check("proxy: the upstream's close code comes through", code == 1000, closed)
    stream = None
    for _ in range(100):
        status, _, listed = http(proxy, "/__admin/requests")
        entries = [e for e in json.loads(listed).get("requests", []) if e.get("path") == "/v1/chat"]
        stream = entries[0].get("stream") if entries else None
        if stream and stream.get("ended"):
            break
        time.sleep(0.05)  # polling the journal until the proxy has seen the close, not readiness
    items = [(i["direction"], i["text"]) for i in (stream or {}).get("items", [])]
    checks.check("proxy journal: the WebSocket's messages both ways",
                 stream is not None and stream["kind"] == "websocket" and ("received", "bye") in items
                 and any(d == "sent" and "through" in t for d, t in items) and stream.get("ended"), stream)


def proxied_events(checks, proxy):
    started = time.monotonic()
    result = subprocess.run(["curl", "-sN", proxy + "/v1/orders/42/tracking"], capture_output=True, text=True, timeout=20)
    events = [block for block in result.stdout.split("\n\n") if block.strip()]
    checks.check("proxy: curl gets the tracking events through the proxy", len(events) >= 4 and "delivered" in result.stdout, result.stdout)
    checks.check("proxy: the events keep their timing", time.monotonic() - started > 1, time.monotonic() - started)
    _, _, listed = http(proxy, "/__admin/requests")
    entries = [e for e in json.loads(listed).get("requests", []) if e.get("path") == "/v1/orders/42/tracking"]
    stream = entries[0].get("stream") if entries else None
    checks.check("proxy journal: the events one by one", stream is not None and stream["kind"] == "events"
                 and len(stream["items"]) >= 4, stream)


def openai_checks(checks, base):
    from openai import OpenAI
    client = OpenAI(base_url=base + "/v1", api_key="sk-stub")
    started = time.monotonic()
    stream = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Hi"}], stream=True)
    pieces, arrivals = [], []
    for chunk in stream:
        arrivals.append(time.monotonic() - started)
        if chunk.choices and chunk.choices[0].delta.content:
            pieces.append(chunk.choices[0].delta.content)
    text = "".join(pieces)
    checks.check("openai: the streamed answer arrives in pieces", len(pieces) >= 3 and "stub" in text, pieces)
    checks.check("openai: the pieces arrive over time, not at once", arrivals and arrivals[-1] - arrivals[0] > 0.1, arrivals)
    answer = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Hi"}])
    checks.check("openai: without stream, one JSON answer", answer.choices[0].message.content == text, answer)
    checks.check("openai: the answer names the model asked for", answer.model == "gpt-4o-mini", answer.model)


def curl_checks(checks, base):
    started = time.monotonic()
    result = subprocess.run(["curl", "-sN", base + "/v1/orders/42/tracking"], capture_output=True, text=True, timeout=20)
    events = [block for block in result.stdout.split("\n\n") if block.strip()]
    checks.check("curl: the tracking stream sends its events and ends", len(events) >= 4 and "delivered" in result.stdout, result.stdout)
    checks.check("curl: the events take their time", time.monotonic() - started > 1, time.monotonic() - started)


def main():
    parser = argparse.ArgumentParser()
    add_binary_argument(parser)
    args = parser.parse_args()
    checks = Checks()
    process, base = start(binary_path(args))
    empty = tempfile.mkdtemp(prefix="streams-proxy-")
    proxy_process, proxy = start(binary_path(args), ["--dir", empty, "--proxy", base])
    try:
        for name, run in [("websockets", lambda: asyncio.run(chat(checks, base))),
                          ("openai", lambda: openai_checks(checks, base)), ("curl", lambda: curl_checks(checks, base)),
                          ("proxy websockets", lambda: asyncio.run(proxied_chat(checks, base, proxy))),
                          ("proxy curl", lambda: proxied_events(checks, proxy))]:
            try:
                run()
            except Exception as error:  # a client error is a failed check, with what it said
                checks.check(f"{name}: the client's flow runs", False, repr(error))
    finally:
        for running in (proxy_process, process):
            running.terminate()
            running.wait(timeout=10)
        shutil.rmtree(empty, ignore_errors=True)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
