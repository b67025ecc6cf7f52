"""`unimem serve` (one worker, Redis + PostgreSQL) under closed-loop load:
throughput, p50/p99 and errors at 1 to 128 concurrent clients, and 64 clients
held for 30 s.

Usage: python bench/bench_load.py [--seconds 8] [--hold 30] [--levels 1,8,32,64,128]
       [--rounds 2] [--processes 1]

Each client is one keep-alive connection (``bench_http.Http1``: requests
written as bytes, about 0.05 ms of client CPU per request) alternating
``POST entries`` (a typed turn: language and PHI detection on) and
``GET context?max_messages=10`` on a session of its own. All clients run in
this process, on the same 2 cores as the server, so the table also gives the
load generator's CPU share and the server's: when the generator uses a large
share of a core, lower throughput at high concurrency is the generator's, not
the server's. A general-purpose client (httpx with one pool shared by every
client) spends about ten times this one's CPU per request, and its pool costs
more as connections grow.

The levels run in ``--rounds`` sweeps, up then down then up again, and each
level's row adds up its sweeps: on a machine shared with other work, whose
load rises and falls over minutes, a single sweep up would charge a rise in
the load to the last levels, and read as throughput falling with clients.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from bench_http import (
    MESSAGE,
    REDIS,
    SECRET,
    Http1,
    cpu_seconds,
    pct,
    reachable,
    serve,
    with_pg_schema,
)

from unimem.server.auth import issue_token

TURN = json.dumps({"role": "user", "content": MESSAGE, "mode": "text"}).encode()


async def run_clients(
    port: int, clients: int, seconds: float, tag: str, first: int = 0
) -> dict[str, Any]:
    """``clients`` closed-loop clients for ``seconds`` after a 1 s warm-up: the
    latencies measured (ms), the errors, and this process's CPU share."""
    headers = f"Authorization: Bearer {issue_token(SECRET, 'load', 3600)}\r\n"
    appends: list[float] = []
    reads: list[float] = []
    errors = 0
    stop = asyncio.Event()
    measuring = asyncio.Event()

    async def client(i: int) -> None:
        nonlocal errors
        http = await Http1.connect("127.0.0.1", port)
        url = f"/v1/sessions/load-{tag}-{i}/entries"
        context_url = f"/v1/sessions/load-{tag}-{i}/context?max_messages=10"
        try:
            while not stop.is_set():
                t0 = time.perf_counter()
                s1, _ = await http.request("POST", url, TURN, headers)
                t1 = time.perf_counter()
                s2, _ = await http.request("GET", context_url, b"", headers)
                t2 = time.perf_counter()
                if measuring.is_set():
                    appends.append((t1 - t0) * 1000)
                    reads.append((t2 - t1) * 1000)
                    errors += (s1 != 201) + (s2 != 200)
        finally:
            http.close()

    tasks = [asyncio.create_task(client(first + i)) for i in range(clients)]
    await asyncio.sleep(1.0)
    measuring.set()
    self0, t0 = time.process_time(), time.perf_counter()
    await asyncio.sleep(seconds)
    measuring.clear()
    elapsed = time.perf_counter() - t0
    client_cpu = (time.process_time() - self0) / elapsed
    stop.set()
    await asyncio.gather(*tasks)
    return {"appends": appends, "reads": reads, "errors": errors, "client_cpu": client_cpu}


async def _generator(port: int, clients: int, seconds: float, tag: str, first: int) -> bytes:
    """One generator process's :func:`run_clients`, as JSON on its stdout."""
    command = [sys.executable, __file__, "--generate", f"{port},{clients},{seconds},{tag},{first}"]
    proc = await asyncio.create_subprocess_exec(*command, stdout=subprocess.PIPE)
    out, _ = await proc.communicate()
    if proc.returncode:
        raise RuntimeError(f"a load generator exited with {proc.returncode}")
    return out


async def level(
    port: int, pid: int, clients: int, seconds: float, processes: int = 1
) -> dict[str, Any]:
    """``clients`` closed-loop clients for ``seconds`` (after a 1 s warm-up), in
    this process or split over ``processes`` generator processes."""
    tag = uuid.uuid4().hex[:8]
    server0 = cpu_seconds(pid)
    started = time.perf_counter()
    if processes <= 1:
        parts = [await run_clients(port, clients, seconds, tag)]
    else:
        shares = [clients // processes + (n < clients % processes) for n in range(processes)]
        firsts = [sum(shares[:n]) for n in range(processes)]
        outs = await asyncio.gather(
            *(
                _generator(port, share, seconds, tag, first)
                for share, first in zip(shares, firsts, strict=True)
                if share
            )
        )
        parts = [json.loads(out) for out in outs]
    # the server's CPU over the whole level (warm-up and wind-down included)
    server_cpu = (cpu_seconds(pid) - server0) / (time.perf_counter() - started)
    appends = [ms for part in parts for ms in part["appends"]]
    reads = [ms for part in parts for ms in part["reads"]]
    both = appends + reads
    return {
        "appends": appends,
        "reads": reads,
        "seconds": seconds,
        "clients": clients,
        "ops_per_s": len(both) / seconds,
        "p50": statistics.median(both),
        "p99": pct(both, 0.99),
        "append_p99": pct(appends, 0.99),
        "context_p99": pct(reads, 0.99),
        "errors": sum(part["errors"] for part in parts),
        "server_cpu": server_cpu,
        "client_cpu": sum(part["client_cpu"] for part in parts),
    }


def combined(sweeps: list[dict[str, Any]]) -> dict[str, Any]:
    """One level's sweeps as one row: every request's latency, the throughput
    and CPU shares over the sweeps' time together."""
    appends = [ms for r in sweeps for ms in r["appends"]]
    reads = [ms for r in sweeps for ms in r["reads"]]
    both = appends + reads
    seconds = sum(r["seconds"] for r in sweeps)
    return {
        "clients": sweeps[0]["clients"],
        "ops_per_s": len(both) / seconds,
        "sweeps_ops_per_s": [r["ops_per_s"] for r in sweeps],
        "p50": statistics.median(both),
        "p99": pct(both, 0.99),
        "append_p99": pct(appends, 0.99),
        "context_p99": pct(reads, 0.99),
        "errors": sum(r["errors"] for r in sweeps),
        "server_cpu": statistics.fmean(r["server_cpu"] for r in sweeps),
        "client_cpu": statistics.fmean(r["client_cpu"] for r in sweeps),
    }


async def recall_backlog(port: int) -> str:
    """The recall indexer's queue as ``GET /recallz`` reports it."""
    http = await Http1.connect("127.0.0.1", port)
    try:
        status, body = await http.request("GET", "/recallz")
    finally:
        http.close()
    if status != 200:
        return f"GET /recallz answered {status}"
    index = json.loads(body)
    oldest = index.get("oldest_pending_seconds")
    waited = f", the oldest waiting {oldest:.1f} s" if oldest is not None else ""
    return f"recall index ({index['mode']}): {index['pending']} entries queued{waited}"


def row(r: dict[str, Any]) -> str:
    return (
        f"{int(r['clients']):>8}{r['ops_per_s']:>10.0f}{r['p50']:>9.2f}{r['p99']:>9.2f}"
        f"{r['append_p99']:>12.2f}{r['context_p99']:>12.2f}{int(r['errors']):>8}"
        f"{r['server_cpu'] * 100:>11.0f}%{r['client_cpu'] * 100:>11.0f}%"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per level")
    parser.add_argument("--hold", type=float, default=30.0, help="seconds at 64 clients")
    parser.add_argument("--levels", default="1,8,32,64,128")
    parser.add_argument(
        "--rounds", type=int, default=2, help="sweeps over the levels, alternately up and down"
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument(
        "--processes", type=int, default=1, help="load generator processes the clients share"
    )
    parser.add_argument("--generate", help=argparse.SUPPRESS)  # one generator process's work
    args = parser.parse_args()
    if args.generate:
        port, clients, seconds, tag, first = args.generate.split(",")
        part = await run_clients(int(port), int(clients), float(seconds), tag, int(first))
        sys.stdout.write(json.dumps(part))
        return
    if not (reachable(5432) and reachable(6379)):
        raise SystemExit("bench_load needs PostgreSQL and Redis on loopback")
    dsn, drop = await with_pg_schema()
    env = {"UNIMEM_DATABASE_URL": dsn, "UNIMEM_REDIS_URL": REDIS, "UNIMEM_SESSION_TTL": "600"}
    results: list[dict[str, Any]] = []
    loads = [os.getloadavg()]
    try:
        async with serve(env) as (port, pid):
            levels = [int(c) for c in args.levels.split(",")]
            sweeps: dict[int, list[dict[str, Any]]] = {clients: [] for clients in levels}
            for sweep in range(max(1, args.rounds)):
                for clients in levels if sweep % 2 == 0 else levels[::-1]:
                    measured = await level(port, pid, clients, args.seconds, args.processes)
                    sweeps[clients].append(measured)
                    done = f"  {clients} clients: {measured['ops_per_s']:.0f} ops/s"
                    print(done, file=sys.stderr)
            results = [combined(sweeps[clients]) for clients in levels]
            hold = await level(port, pid, 64, args.hold, args.processes)
            loads.append(os.getloadavg())
            backlog = await recall_backlog(port)
    finally:
        await drop()
    head = (
        f"{'clients':>8}{'ops/s':>10}{'p50':>9}{'p99':>9}{'append p99':>12}"
        f"{'context p99':>12}{'errors':>8}{'server CPU':>12}{'client CPU':>12}"
    )
    rounds = f"{max(1, args.rounds)} sweeps of {args.seconds:.0f} s"
    generators = "this process" if args.processes <= 1 else f"{args.processes} processes"
    print(
        f"\nunimem serve, 1 worker, Redis + PostgreSQL, {rounds} per level (ms); "
        f"clients in {generators}; load average before "
        + " / ".join(f"{x:.2f}" for x in loads[0])
        + ", after "
        + " / ".join(f"{x:.2f}" for x in loads[1])
    )
    print(head)
    for r in results:
        print(row(r))
    print(
        "ops/s of each sweep: "
        + "; ".join(
            f"{int(r['clients'])}: " + " / ".join(f"{x:.0f}" for x in r["sweeps_ops_per_s"])
            for r in results
        )
    )
    best = max(r["ops_per_s"] for r in results)
    print(f"\n64 clients held for {args.hold:.0f} s:")
    print(head)
    print(row(hold))
    for r in results:
        if r["clients"] >= 64:
            share = r["ops_per_s"] / best
            print(f"{int(r['clients'])} clients: {share:.0%} of the best level's throughput")
    print(f"after the hold, {backlog}")
    if args.json:
        summary = {k: v for k, v in hold.items() if k not in ("appends", "reads")}
        args.json.write_text(json.dumps({"levels": results, "hold": summary}, indent=2))
    if hold["errors"] or any(r["errors"] for r in results):
        sys.exit("errors under load")


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    try:
        import uvloop
    except ImportError:
        asyncio.run(main())
    else:
        uvloop.run(main())
