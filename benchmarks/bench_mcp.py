"""`vshell mcp` under many sessions: the worker pool next to the single-process server.

Starts two servers over streamable HTTP on loopback, `--workers 0` (every session in the
server process, on threads) and `--workers N` (default: the cores), and drives each with
1, 8 and 64 concurrent MCP sessions (official SDK clients, one Mcp-Session-Id each) that
run a mixed script: text tools in a pipeline, a shell loop, `python3 -c pass`.  Reported:
requests per second, p50/p99 latency, and the CPU seconds the server and its workers used
(from /proc), per mode, with the pool's figures as ratios to the single process.  Then the
answer time of `ping` from one client while another runs a pathological script (a busy
loop; a glob over a deep tree).  Modes alternate run by run; medians of --runs.

Usage: python3 benchmarks/bench_mcp.py [--runs 2] [--workers N] [--sizes 1,8,64]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MIX = ("seq 1 3000 | grep 7 | sort -r | head -3 | wc -l; "
       "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); done; echo $i; python3 -c pass")
EXPECT = "3\n3000\n"
BUSY = "i=0; while :; do i=$((i+1)); done"
TREE = "mkdir -p /tmp/t/{a,b,c,d}/{a,b,c,d}/{a,b,c,d}/{a,b,c,d}/{a,b,c,d}/{a,b,c,d}"
GLOB = "shopt -s globstar; while :; do echo /tmp/t/**/**/*[xyz]* > /dev/null; done"
REQUESTS = {1: 8, 8: 32, 64: 64}  # requests per round at each session count


def start(workers: int) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "vshell", "mcp", "--http", "127.0.0.1:0",
                             "--workers", str(workers), "--max-sessions", "200",
                             "--command-timeout", "120"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env, cwd=REPO)
    assert proc.stderr is not None
    while True:
        line = proc.stderr.readline()
        m = re.search(rb"listening on (http://\S+)", line)
        if m:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, m.group(1).decode()
        if not line:
            raise SystemExit("server did not start")


def cpu_seconds(pid: int) -> float:
    """utime + stime of ``pid`` and its live children."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == pid or int(fields[1]) == pid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


class Clients:
    """N SDK client sessions on one event loop."""

    def __init__(self, url: str, n: int) -> None:
        self.url, self.n = url, n
        self.sessions: list[Any] = []
        self.stack: Any = None

    async def __aenter__(self) -> Clients:
        from contextlib import AsyncExitStack

        import httpx2
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        self.stack = AsyncExitStack()
        for _ in range(self.n):
            http = httpx2.AsyncClient(timeout=httpx2.Timeout(300, read=300))
            read, write = await self.stack.enter_async_context(
                streamable_http_client(self.url, http_client=http))
            s = await self.stack.enter_async_context(ClientSession(read, write))
            await s.initialize()
            self.sessions.append(s)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stack.aclose()


async def bash(session: Any, command: str) -> str:
    res = await session.call_tool("bash", {"command": command})
    return "".join(getattr(c, "text", "") for c in res.content)


async def load(url: str, n: int, pid: int) -> dict[str, float]:
    async with Clients(url, n) as cl:
        await asyncio.gather(*(bash(s, "true") for s in cl.sessions))  # sessions exist
        total = REQUESTS[n]
        per = [total // n + (1 if i < total % n else 0) for i in range(n)]
        latencies: list[float] = []

        async def one(s: Any, k: int) -> None:
            for _ in range(k):
                began = time.perf_counter()
                out = await bash(s, MIX)
                latencies.append(time.perf_counter() - began)
                assert out == EXPECT, out

        cpu0, wall0 = cpu_seconds(pid), time.perf_counter()
        await asyncio.gather(*(one(s, k) for s, k in zip(cl.sessions, per, strict=True)))
        wall, cpu = time.perf_counter() - wall0, cpu_seconds(pid) - cpu0
    latencies.sort()
    return {"rps": total / wall, "p50": statistics.median(latencies),
            "p99": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))],
            "cpu": cpu, "wall": wall}


async def ping_while(url: str, script: str, setup: str | None) -> dict[str, float]:
    async with Clients(url, 2) as cl:
        busy, quiet = cl.sessions
        if setup:
            await bash(busy, setup)
        await quiet.send_ping()
        task = asyncio.ensure_future(busy.call_tool("bash", {"command": script,
                                                             "timeout": 4}))
        await asyncio.sleep(0.5)
        times = []
        while not task.done() and len(times) < 60:
            began = time.perf_counter()
            await quiet.send_ping()
            times.append(time.perf_counter() - began)
            await asyncio.sleep(0.05)
        await task
    times.sort()
    return {"p50": statistics.median(times) * 1000, "max": times[-1] * 1000,
            "n": float(len(times))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--sizes", default="1,8,64")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    modes = {"1 process": 0, f"{args.workers} workers": args.workers}
    servers = {name: start(w) for name, w in modes.items()}
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start; "
          f"mixed script: {MIX!r}")
    try:
        figures: dict[tuple[str, int], list[dict[str, float]]] = {}
        for n in sizes:
            for run in range(args.runs):
                order = list(modes) if run % 2 == 0 else list(modes)[::-1]
                for name in order:
                    proc, url = servers[name]
                    figures.setdefault((name, n), []).append(asyncio.run(load(url, n, proc.pid)))
        print(f"\n{'sessions':>8} {'mode':>10} {'req/s':>7} {'p50 s':>7} {'p99 s':>7} "
              f"{'cpu s':>7} {'req/s ratio':>11}")
        for n in sizes:
            base = None
            for name in modes:
                rs = figures[(name, n)]
                med = {k: statistics.median(r[k] for r in rs) for k in rs[0]}
                base = base or med["rps"]
                print(f"{n:>8} {name:>10} {med['rps']:7.2f} {med['p50']:7.2f} "
                      f"{med['p99']:7.2f} {med['cpu']:7.2f} {med['rps'] / base:11.2f}")
        print("\nping answer time (ms) while another session runs a pathological script")
        print(f"{'script':>10} {'mode':>10} {'p50':>7} {'max':>7} {'pings':>6}")
        for label, script, setup in (("busy loop", BUSY, None), ("glob", GLOB, TREE)):
            for name in modes:
                _, url = servers[name]
                r = asyncio.run(ping_while(url, script, setup))
                print(f"{label:>10} {name:>10} {r['p50']:7.1f} {r['max']:7.1f} {r['n']:6.0f}")
        print(f"\nload average {os.getloadavg()[0]:.2f} at the end")
    finally:
        for proc, _ in servers.values():
            proc.terminate()
            proc.wait(10)
    return 0


if __name__ == "__main__":
    sys.exit(main())
