"""A loopback-only HTTP(S) test server run in a thread by the net tests themselves."""

from __future__ import annotations

import contextlib
import datetime
import gzip
import ipaddress
import json
import socket
import ssl
import threading
import time
import urllib.parse
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: LoopServer

    def log_message(self, *args: object) -> None:  # keep pytest output clean
        pass

    def _send(self, status: int, body: bytes, ctype: str = "text/plain",
              extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_POST(self) -> None:
        self.do_GET()

    def do_PUT(self) -> None:
        self.do_GET()

    def do_DELETE(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        path = url.path
        self.server.hits.append(path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if path == "/hello":
            self._send(200, b"hello\n")
        elif path.startswith("/status/"):
            code = int(path.rsplit("/", 1)[1])
            self._send(code, f"status {code}\n".encode())
        elif path == "/redirect":
            code = int(q.get("code", "302"))
            self._send(code, b"moved\n", extra={"Location": q["to"]})
        elif path == "/loop":
            self._send(302, b"", extra={"Location": "/loop"})
        elif path == "/echo":
            info = {
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body.decode("latin-1"),
            }
            self._send(200, json.dumps(info).encode(), "application/json")
        elif path == "/gzip":
            self._send(200, gzip.compress(b"squeezed\n"), extra={"Content-Encoding": "gzip"})
        elif path == "/big":
            n = int(q.get("n", "1000000"))
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(n))
            self.end_headers()
            block = b"x" * 65536
            left = n
            try:
                while left > 0:
                    self.wfile.write(block[: min(left, len(block))])
                    left -= len(block)
            except OSError:
                pass
        elif path == "/slow":
            self.server.stop.wait(float(q.get("s", "5")))
            with contextlib.suppress(OSError):
                self._send(200, b"late\n")
        elif path == "/flaky":
            self.server.flaky += 1
            if self.server.flaky <= int(q.get("fail", "1")):
                self._send(503, b"busy\n")
            else:
                self._send(200, b"recovered\n")
        elif path == "/files/data.bin":
            self._send(200, b"\x00\x01data")
        else:
            self._send(404, b"not found\n")


class LoopServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> None:
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        super().__init__((host, 0), Handler)
        if tls is not None:
            self.socket = tls.wrap_socket(self.socket, server_side=True)
        self.hits: list[str] = []
        self.flaky = 0
        self.stop = threading.Event()
        self.scheme = "https" if tls else "http"

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, path: str, host: str | None = None) -> str:
        h = host or str(self.server_address[0])
        if ":" in h:
            h = f"[{h}]"
        return f"{self.scheme}://{h}:{self.port}{path}"


@contextlib.contextmanager
def serve(host: str = "127.0.0.1", tls: ssl.SSLContext | None = None) -> Iterator[LoopServer]:
    """Run a server until the block ends; slow handlers are released at once."""
    srv = LoopServer(host, tls)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.stop.set()
        srv.shutdown()
        srv.server_close()
        thread.join(5)


def make_ca(tmp: Path, names: list[str]) -> tuple[Path, ssl.SSLContext]:
    """A throw-away CA and a server certificate for ``names``; returns (ca.pem, server ctx)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "vshell test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False),
                       critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    sans: list[x509.GeneralName] = []
    for n in names:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(n)))
        except ValueError:
            sans.append(x509.DNSName(n))
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0])]))
        .issuer_name(ca_name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName(sans), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    ca_pem = tmp / "ca.pem"
    ca_pem.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    cert_pem = tmp / "server.pem"
    cert_pem.write_bytes(
        cert.public_bytes(serialization.Encoding.PEM)
        + key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    )
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert_pem)
    return ca_pem, ctx


def wait_until(pred: object, timeout: float = 5.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():  # type: ignore[operator]
            return True
        time.sleep(0.01)
    return False
