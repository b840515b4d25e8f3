"""A UCP platform on 127.0.0.1 for the outbound tests: a thread serving the answers a test sets.

`server.answer(path, status, body, headers, delay, drip, length)` says what GET or POST `path` returns;
`server.requests` lists what arrived (method, path, headers, body), in order.
"""
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Canned:
    status: int = 200
    body: bytes = b""
    headers: dict = field(default_factory=lambda: {"Content-Type": "application/json"})
    delay: float = 0  # seconds before the status line
    drip: float = 0  # seconds between the body's bytes
    length: bool = True  # False: no Content-Length, the body ends when the connection closes


@dataclass
class Arrived:
    method: str
    path: str
    headers: dict
    body: bytes


class PlatformServer:
    def __init__(self):
        self.answers = {}
        self.requests = []
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.httpd.daemon_threads = True
        # Polling every 50 ms, not every 500: each test stops a server of its own.
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self):
        return self.httpd.server_address[1]

    def url(self, path, host="127.0.0.1"):
        return f"http://{host}:{self.port}{path}"

    def answer(self, path, status=200, body=b"", headers=None, delay=0, drip=0, length=True):
        if not isinstance(body, bytes):
            body = json.dumps(body).encode()
        self.answers[path] = Canned(status, body, headers or {"Content-Type": "application/json"}, delay, drip,
                                    length)

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self._serve(b"")

            def do_POST(self):
                self._serve(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

            def _serve(self, body):
                server.requests.append(Arrived(self.command, self.path, dict(self.headers.items()), body))
                canned = server.answers.get(self.path, Canned(404, b"{}"))
                time.sleep(canned.delay)
                self.send_response(canned.status)
                for name, value in canned.headers.items():
                    self.send_header(name, value)
                if canned.length:
                    self.send_header("Content-Length", str(len(canned.body)))
                self.end_headers()
                try:
                    self._write(canned)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up, as the tests expect it to

            def _write(self, canned):
                if not canned.drip:
                    self.wfile.write(canned.body)
                    return
                for byte in canned.body:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(canned.drip)

        return Handler

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
