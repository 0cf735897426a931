"""A headless Chromium driven over the Chrome DevTools Protocol (a websocket), for the UI tests:
start it, open pages, run script, press keys, take screenshots. Debian's ``chromium``; the
session's own profile in a temporary directory."""

from __future__ import annotations

import base64
import itertools
import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One Chromium process and its first page."""

    def __init__(self, profile: Path, width: int = 1280, height: int = 900) -> None:
        assert CHROMIUM is not None
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                f"--user-data-dir={profile}",
                f"--window-size={width},{height}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.close()
                raise RuntimeError("chromium did not open its DevTools port")
            time.sleep(0.1)
        port = port_file.read_text().splitlines()[0]
        pages = [t for t in httpx.get(f"http://127.0.0.1:{port}/json/list").json() if t["type"] == "page"]
        self.ws = connect(pages[0]["webSocketDebuggerUrl"], max_size=64 * 2**20)
        self.ids = itertools.count(1)
        self.send("Page.enable")
        self.send("Runtime.enable")

    def close(self) -> None:
        try:
            self.ws.close()
        except Exception:
            pass
        self.proc.kill()
        self.proc.wait(timeout=30)

    def send(self, method: str, **params: Any) -> dict[str, Any]:
        n = next(self.ids)
        self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("id") == n:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return msg.get("result", {})

    def eval(self, expression: str) -> Any:
        r = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 60) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                value = self.eval(expression)
            except RuntimeError:  # the page is being replaced
                value = None
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(f"waited {timeout} s for {expression}")

    def open(self, url: str) -> None:
        self.send("Page.navigate", url=url)
        self.wait_for(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    def follow(self, action: str, timeout: float = 120) -> str:
        """Run ``action`` (script that clicks or submits), then wait for the next page; its URL."""
        before = self.eval("location.href + '#' + performance.timeOrigin")
        self.eval(action)
        self.wait_for(
            f"location.href + '#' + performance.timeOrigin !== {json.dumps(before)} && document.readyState === 'complete'",
            timeout,
        )
        return self.eval("location.href")

    def key(self, key: str, code: str, keycode: int, text: str = "") -> None:
        """Press and release a key (``text``: what it types, e.g. "\r" for Enter, which submits a form)."""
        down = {"type": "keyDown", "text": text} if text else {"type": "rawKeyDown"}
        for event in (down, {"type": "keyUp"}):
            self.send("Input.dispatchKeyEvent", key=key, code=code, windowsVirtualKeyCode=keycode, **event)

    def tab(self) -> str:
        """Press Tab; the id (or tag) of the element that has the focus now."""
        self.key("Tab", "Tab", 9)
        return self.eval("document.activeElement.id || document.activeElement.tagName")

    def type(self, text: str) -> None:
        self.send("Input.insertText", text=text)

    def text(self) -> str:
        return self.eval("document.body.innerText")

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])
