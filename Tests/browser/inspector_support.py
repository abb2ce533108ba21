"""Helpers for the inspector's browser test and the benchmark's inspector section: the
stubserver process (its port read from the ready line), headless Chromium through selenium,
and a plain server-sent-events client that counts entries by id."""
import json, os, re, shutil, socket, subprocess, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def until(condition, timeout, interval=0.05):
    """True as soon as condition() is; False after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if condition():
                return True
        except Exception:  # the page is between two states: look again
            pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval)


class StubServer:
    """stubserver on port 0: ready when its first line says so (no sleep, no fixed port)."""

    def __init__(self, binary, folder, *extra, cwd=None):
        self.proc = subprocess.Popen([binary, "--dir", folder, "--port", "0", "--no-watch", "--log", "quiet", *extra],
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=cwd)
        ready = self.proc.stdout.readline()
        match = re.match(r"stubserver listening on (http://\S+) \(", ready)
        if not match:
            self.proc.kill()
            raise RuntimeError(f"stubserver did not start: {ready!r}")
        self.base = match.group(1)
        self.port = int(self.base.rsplit(":", 1)[1])
        self.inspector_line = self.proc.stdout.readline().strip()
        # Beyond loopback with no token given, the server prints the one it made up.
        self.token = None
        if "#token=" in self.inspector_line:
            self.token = self.inspector_line.split("#token=", 1)[1]
            self.proc.stdout.readline()  # the "admin token:" line
            self.base = self.base.replace("0.0.0.0", "127.0.0.1")

    def pids(self):
        return [self.proc.pid]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.stop()


class Browser:
    """Headless Chromium from Debian's packages, driven through chromedriver."""

    def __init__(self, width=1400, height=900, arguments=()):
        os.environ.setdefault("SE_OFFLINE", "true")  # never let selenium look for drivers online
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        options = webdriver.ChromeOptions()
        options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                         f"--window-size={width},{height}", "--hide-scrollbars", "--force-device-scale-factor=1", *arguments):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"performance": "ALL", "browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                                       options=options)
        self.driver.set_script_timeout(10)

    def open(self, url):
        self.driver.get(url)

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def js_async(self, script):
        return self.driver.execute_async_script(script)

    def element(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def text(self, selector):
        return self.js("const e = document.querySelector(arguments[0]); return e ? e.textContent.trim() : ''", selector)

    def count(self, selector):
        return self.js("return document.querySelectorAll(arguments[0]).length", selector)

    def visible(self, selector):
        return self.js("const e = document.querySelector(arguments[0]); return !!e && e.offsetParent !== null", selector)

    def click(self, selector):
        self.element(selector).click()

    def click_row(self, target):
        # The list is redrawn live (a stream's row changes as it runs), so the row found may be
        # replaced before the click lands: find it again then, a few times, never more.
        from selenium.common.exceptions import StaleElementReferenceException
        for attempt in range(5):
            row_id = self.js("""return [...document.querySelectorAll('#request-list .row')]
                .find(r => r.querySelector('.target').textContent === arguments[0])?.id""", target)
            try:
                self.element("#" + row_id).click()
                return
            except StaleElementReferenceException:
                if attempt == 4:
                    raise

    def type(self, selector, text):
        element = self.element(selector)
        element.clear()
        if text:
            element.send_keys(text)
        else:  # clear() fires no input event
            self.js("arguments[0].dispatchEvent(new Event('input'))", element)

    def select(self, selector, value):
        from selenium.webdriver.support.ui import Select
        Select(self.element(selector)).select_by_value(value)

    def keys(self, *names):
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys
        chain = ActionChains(self.driver)
        for name in names:
            chain.send_keys({"Home": Keys.HOME, "End": Keys.END, "ArrowDown": Keys.ARROW_DOWN, "ArrowUp": Keys.ARROW_UP,
                             "Enter": Keys.ENTER, "Tab": Keys.TAB, "Escape": Keys.ESCAPE}[name])
        chain.perform()

    def tab_until(self, element_id, limit):
        """Presses Tab until the element has focus: the focus order reaches it."""
        for _ in range(limit):
            self.keys("Tab")
            if self.js("return document.activeElement && document.activeElement.id") == element_id:
                return True
        return False

    def dark(self, on):
        self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                                    {"features": [{"name": "prefers-color-scheme", "value": "dark" if on else "light"}]})

    def allow_downloads(self, folder):
        self.driver.execute_cdp_cmd("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})

    def screenshot(self, path):
        self.driver.save_screenshot(path)

    def cookies(self):
        return self.driver.get_cookies()

    def requested_urls(self):
        """Every URL the browser asked for since the last call (Chrome's performance log)."""
        urls = []
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message.get("method") == "Network.requestWillBeSent":
                urls.append(message["params"]["request"]["url"])
        return urls

    def console_errors(self):
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def quit(self):
        self.driver.quit()


class EventCounter:
    """A page's stand-in: reads GET /__admin/events on a thread and keeps the ids it got."""

    def __init__(self, port, since=None):
        self.ids = []
        self.bytes = 0
        self.stopped = False
        self.sock = socket.create_connection(("127.0.0.1", port))
        target = "/__admin/events" + (f"?since={since}" if since is not None else "")
        self.sock.sendall(f"GET {target} HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n".encode())
        self.hello = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        self.hello.wait(10)

    def _read(self):
        # A regular expression over each read (C speed): the reader must cost little, or the
        # benchmark would measure the reader instead of the server.
        id_line = re.compile(rb"^id: (\d+)\r?$", re.M)
        pending = b""
        while not self.stopped:
            try:
                data = self.sock.recv(1 << 20)
            except OSError:
                return
            if not data:
                return
            self.bytes += len(data)
            data = pending + data
            cut = data.rfind(b"\n") + 1  # whole lines only; the rest waits for the next read
            pending = data[cut:]
            whole = data[:cut]
            self.ids.extend(id_line.findall(whole))
            if not self.hello.is_set() and b"event: hello" in whole:
                self.hello.set()

    def id_numbers(self):
        return [int(i) for i in self.ids]

    def close(self):
        self.stopped = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
