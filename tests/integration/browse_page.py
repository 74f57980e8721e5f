#!/usr/bin/env python3
"""Loads a page in headless Chromium over the DevTools protocol (--remote-debugging-pipe: no
port, no library beyond Python's own) and reports what a user would see over time.

Usage: browse_page.py CHROMIUM URL SECONDS OUT_DIR

Keeps the page open for SECONDS of real time. Writes OUT_DIR/load-N.html, the DOM after each
load (the first, then every reload the page does by itself), and OUT_DIR/console.txt, one line
per console message, uncaught exception or browser log entry of level warning or error.
Prints the number of loads. Exits 2 if the browser cannot be driven.
"""
import json
import os
import select
import subprocess
import sys
import time


def main():
    browser, url, seconds, out_dir = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4]
    # Chromium reads commands from fd 3 and writes replies and events to fd 4, each message a
    # JSON text ended by a NUL byte.
    to_browser_r, to_browser_w = os.pipe()
    from_browser_r, from_browser_w = os.pipe()

    def child_fds():
        # Via fresh descriptors: dup2 onto itself would keep the pipe's close-on-exec flag.
        read_end, write_end = os.dup(to_browser_r), os.dup(from_browser_w)
        os.dup2(read_end, 3)
        os.dup2(write_end, 4)
        os.set_inheritable(3, True)
        os.set_inheritable(4, True)

    proc = subprocess.Popen(
        [browser, "--headless=new", "--disable-gpu", "--no-sandbox", "--no-first-run",
         "--user-data-dir=" + os.path.join(out_dir, "profile"), "--remote-debugging-pipe",
         "about:blank"],
        stdout=open(os.path.join(out_dir, "browser.log"), "w"), stderr=subprocess.STDOUT,
        preexec_fn=child_fds, close_fds=False)  # fds 3 and 4 are set after the close
    os.close(to_browser_r)
    os.close(from_browser_w)
    writer = os.fdopen(to_browser_w, "wb", buffering=0)
    reader = os.fdopen(from_browser_r, "rb", buffering=0)
    buffer = b""
    next_id = [0]
    pending = []  # events read while waiting for a reply

    def read_message(deadline):
        nonlocal buffer
        while b"\0" not in buffer:
            if time.time() > deadline:
                return None
            ready, _, _ = select.select([reader], [], [], max(0.0, deadline - time.time()))
            if not ready:
                return None
            chunk = os.read(reader.fileno(), 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed the pipe")
            buffer += chunk
        text, buffer = buffer.split(b"\0", 1)
        return json.loads(text)

    def call(method, params=None, session=None):
        next_id[0] += 1
        message = {"id": next_id[0], "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        writer.write(json.dumps(message).encode() + b"\0")
        deadline = time.time() + 60
        while True:
            reply = read_message(deadline)
            if reply is None:
                raise RuntimeError(method + ": no reply")
            if reply.get("id") == next_id[0]:
                if "error" in reply:
                    raise RuntimeError(method + ": " + json.dumps(reply["error"]))
                return reply.get("result", {})
            pending.append(reply)

    console = []
    loads = 0
    try:
        target = call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            call(domain + ".enable", session=session)
        call("Page.navigate", {"url": url}, session=session)
        end = time.time() + seconds
        while time.time() < end:
            event = pending.pop(0) if pending else read_message(end)
            if event is None:
                break
            method, params = event.get("method"), event.get("params", {})
            if method == "Page.loadEventFired":
                loads += 1
                dom = call("Runtime.evaluate",
                           {"expression": "document.documentElement.outerHTML",
                            "returnByValue": True}, session=session)
                with open(os.path.join(out_dir, "load-%d.html" % loads), "w") as f:
                    f.write(dom["result"].get("value", ""))
            elif method == "Runtime.consoleAPICalled":
                args = " ".join(str(a.get("value", a.get("description", "")))
                                for a in params.get("args", []))
                console.append("console.%s: %s" % (params.get("type"), args))
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                console.append("exception: %s" % details.get("exception", {}).get(
                    "description", details.get("text", "")))
            elif method == "Log.entryAdded":
                entry = params.get("entry", {})
                if entry.get("level") in ("warning", "error"):
                    console.append("log.%s: %s %s" % (entry.get("level"), entry.get("text"),
                                                      entry.get("url", "")))
        call("Browser.close")
    except RuntimeError as error:
        print("browse_page: " + str(error), file=sys.stderr)
        proc.kill()
        return 2
    finally:
        with open(os.path.join(out_dir, "console.txt"), "w") as f:
            f.write("".join(line + "\n" for line in console))
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    print(loads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
