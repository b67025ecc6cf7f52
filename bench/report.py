"""Run every benchmark and write ``docs/benchmarks.md`` with tables and plots.

Usage: python bench/report.py [--quick] [--out docs/benchmarks.md] [--plots bench/plots]

Called by ``bench/run`` (which installs the ``bench`` extra and starts the
local Redis and PostgreSQL first). Each bench script runs as a subprocess on
this machine, in this run; its output is kept verbatim in the report and the
figures in the tables are parsed from it (or from the JSON ``bench/scale.py``
and ``bench/anchors_sqlite.py`` write). Nothing in the report is typed in by
hand: a script that fails or is missing shows up as such.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata as md
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from report_plots import plots
from report_sections import accuracy_sections, md_table, scale_sections

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
PG = "postgresql://postgres@127.0.0.1:5432/test"


def run_script(name: str, args: list[str], timeout: float) -> dict[str, Any]:
    """Run ``bench/<name>`` and capture its output, time and exit status."""
    path = BENCH / name
    if not path.exists():
        return {"name": name, "status": "missing", "out": "", "seconds": 0.0}
    t0 = time.perf_counter()
    print(f"== {name} {' '.join(args)}", flush=True)
    try:
        proc = subprocess.run(
            [sys.executable, str(path), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=ROOT,
        )
        status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
        out = proc.stdout + (f"\n[stderr]\n{proc.stderr[-3000:]}" if proc.returncode else "")
    except subprocess.TimeoutExpired as exc:
        status, out = f"timed out after {timeout:.0f} s", str(exc.stdout or "")
    seconds = time.perf_counter() - t0
    print(f"   {status} in {seconds:.0f} s", flush=True)
    return {"name": name, "status": status, "out": out.rstrip(), "seconds": seconds}


def parse_rows(text: str, numbers: int) -> dict[str, list[float]]:
    """Table rows: a name, then exactly ``numbers`` numbers."""
    num = r"(-?\d+(?:\.\d+)?)"
    gap = r"\s+"
    pattern = re.compile(r"^(\S.*?)\s+" + gap.join([num] * numbers) + r"\s*$")
    rows: dict[str, list[float]] = {}
    for line in text.splitlines():
        match = pattern.match(line.rstrip())
        if match:
            rows[match.group(1).strip()] = [float(g) for g in match.groups()[1:]]
    return rows


def machine() -> dict[str, str]:
    """The machine, the versions and the load at the time of the run."""
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_kb = int(Path("/proc/meminfo").read_text().split()[1])
    info = {
        "cpu": f"{cpu}, {os.cpu_count()} logical cores",
        "memory": f"{mem_kb / 1024 / 1024:.1f} GiB",
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "load average (1/5/15 min)": " / ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    redis_v = subprocess.run(
        ["redis-cli", "-h", "127.0.0.1", "INFO", "server"], capture_output=True, text=True
    ).stdout
    found = re.search(r"redis_version:(\S+)", redis_v)
    info["redis-server"] = found.group(1) if found else "not reachable"
    pg_v = subprocess.run(
        ["psql", PG, "-tAc", "SHOW server_version"], capture_output=True, text=True
    ).stdout.strip()
    info["postgresql server"] = pg_v or "not reachable"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    info["unimem commit"] = commit or "unknown"
    for package in (
        "unimem",
        "redis",
        "asyncpg",
        "fastapi",
        "uvicorn",
        "httpx",
        "lingua-language-detector",
        "openai-agents",
        "langchain-postgres",
        "psycopg",
        "matplotlib",
    ):
        try:
            info[package if package != "redis" else "redis-py"] = md.version(package)
        except md.PackageNotFoundError:
            info[package] = "not installed"
    return info


def raw_block(result: dict[str, Any]) -> str:
    head = f"`bench/{result['name']}`: {result['status']}, {result['seconds']:.0f} s"
    body = result["out"] or "(no output)"
    return f"{head}\n\n```text\n{body}\n```\n"


def ams_status() -> str:
    """Whether Redis agent-memory-server ran in this run (bench/anchors_ams.py)."""
    import anchors_ams

    if anchors_ams.available():
        return (
            "Redis agent-memory-server 0.14.0 ran in this run (`bench/anchors_ams.py`: its "
            "REST API in a Python 3.12 virtualenv, on Redis 8.2 with the search and JSON "
            "modules, on ports of its own); its rows and the ratios to it are from this run."
        )
    return (
        "Redis agent-memory-server was not measured in this run: "
        "`python bench/anchors_ams.py --setup` makes its virtualenv (Python 3.12)."
    )


def ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}x" if a and b else "n/a"


def build(args: argparse.Namespace) -> str:
    q = args.quick
    raw = Path(tempfile.mkdtemp(prefix="unimem-bench-"))
    started = dt.datetime.now(dt.UTC)
    before = machine()
    # The latency benchmarks first: scale.py bulk-fills and drops hundreds of
    # thousands of rows, and PostgreSQL's vacuum and checkpoints afterwards would
    # load the machine under the next scripts (timed against fixed targets).
    runs = {
        "layers": run_script("bench_layers.py", ["--ops", "100" if q else "500"], 600),
        "sqlite": run_script(
            "anchors_sqlite.py",
            ["--ops", "100" if q else "500", "--json", str(raw / "anchors_sqlite.json")],
            300,
        ),
        "http": run_script("bench_http.py", ["--ops", "200" if q else "1000"], 900),
        "load": run_script(
            "bench_load.py",
            ["--seconds", "3" if q else "8", "--hold", "5" if q else "30"],
            900,
        ),
        "core": run_script("bench_core.py", ["--ops", "100" if q else "300"], 600),
        "context": run_script("bench_context.py", ["--ops", "50" if q else "300"], 600),
        "privacy": run_script("bench_privacy.py", ["--ops", "50" if q else "300"], 600),
        "language": run_script("bench_language.py", ["--reps", "3" if q else "20"], 900),
        "phi": run_script("bench_phi.py", ["--runs", "200" if q else "2000"], 600),
        "scale": run_script(
            "scale.py", ["--out", str(raw / "scale.json"), *(["--quick"] if q else [])], 1200
        ),
    }
    finished = dt.datetime.now(dt.UTC)
    scale: dict[str, Any] = {}
    if (raw / "scale.json").exists():
        scale = json.loads((raw / "scale.json").read_text())
    anchors = parse_rows(runs["layers"]["out"], 4)
    context_read = parse_rows(runs["layers"]["out"], 2).get("unimem service get_context")
    anchors.update(parse_rows(runs["sqlite"]["out"], 4))
    http = parse_rows(runs["http"]["out"], 7)
    typed = {
        k.removesuffix(" typed append"): v
        for k, v in parse_rows(runs["http"]["out"], 2).items()
        if k.endswith(" typed append")
    }
    for name, row in http.items():
        row.extend(typed.get(name, [float("nan"), float("nan")]))
    made = plots(scale, anchors, Path(args.plots))
    rel_plots = os.path.relpath(Path(args.plots), Path(args.out).parent)
    return render(
        args, before, started, finished, runs, scale, anchors, http, made, rel_plots, context_read
    )


def render(
    args: argparse.Namespace,
    info: dict[str, str],
    started: dt.datetime,
    finished: dt.datetime,
    runs: dict[str, dict[str, Any]],
    scale: dict[str, Any],
    anchors: dict[str, list[float]],
    http: dict[str, list[float]],
    made: list[str],
    plot_dir: str,
    context_read: list[float] | None = None,
) -> str:
    out: list[str] = [
        "# unimem benchmarks",
        "",
        "<!-- GENERATED by bench/run (bench/report.py) from one run; do not edit by hand. -->",
        "",
        f"Run {started:%Y-%m-%d %H:%M} to {finished:%H:%M} UTC"
        f"{' (--quick: smaller sizes, fewer operations)' if args.quick else ''}. Regenerate with "
        "`bench/run`. Every figure below comes from this run; a script that failed or is "
        "missing says so. The machine is shared with other work, so absolute times carry "
        "its load (see the load average); ratios within one table come from the same "
        "minutes and are the meaningful part.",
        "",
        "## Machine and versions",
        "",
        md_table(["", ""], [[k, v] for k, v in info.items()]),
        f"\nLoad average at the end: {' / '.join(f'{x:.2f}' for x in os.getloadavg())}.",
        "",
    ]
    # a typed turn: unimem detects its language, and PHI detection runs as on every turn
    unimem = anchors.get("unimem service, language detected")
    floor_w = (
        anchors["redis-py floor"][0] + anchors["asyncpg floor"][0]
        if "redis-py floor" in anchors and "asyncpg floor" in anchors
        else None
    )
    floor_r = anchors.get("redis-py floor", [None] * 4)[2]
    heads: list[str] = []
    if unimem:
        heads.append(
            f"Durable append (Redis + PostgreSQL, whole service, a typed turn) p50 "
            f"{unimem[0]:.2f} ms = {ratio(unimem[0], floor_w)} the raw redis-py + asyncpg "
            f"floor (target 1.8x); read of the last 10 (`get_history`) p50 "
            f"{unimem[2]:.2f} ms = {ratio(unimem[2], floor_r)} the redis-py floor "
            "(target 1.5x)."
        )
    if context_read:
        heads.append(
            f"`get_context` (the last 10 plus state, switch events, settings and cross-session "
            f"turns, one Redis round trip) p50 {context_read[0]:.2f} ms, p99 "
            f"{context_read[1]:.2f} ms = {ratio(context_read[0], floor_r)} the redis-py floor."
        )
    for name, row in http.items():
        if name != "http floor":
            heads.append(
                f"HTTP ({name}): voice append p50 {row[0]:.2f} ms, context p50 {row[2]:.2f} "
                f"ms, typed append (language detected) p50 {row[7]:.2f} ms, {row[4]:.0f} "
                "req/s at 32 clients."
            )
    for section, key in (("history", "size"), ("sessions", "sessions")):
        for backend, rows in (scale.get(section) or {}).items():
            first, last = rows[0], rows[-1]
            heads.append(
                f"{backend}, {first[key]:,} -> {last[key]:,} {section}: add_entry p50 "
                f"{first['add']['p50']:.2f} -> {last['add']['p50']:.2f} ms, get_context "
                f"{first['context']['p50']:.2f} -> {last['context']['p50']:.2f} ms, "
                f"build_llm_context {first['llm_context']['p50']:.2f} -> "
                f"{last['llm_context']['p50']:.2f} ms."
            )
    mem = scale.get("memory") or {}
    if mem:
        heads.append(
            f"Redis {mem['redis_bytes_per_session'] / 1024:.1f} KiB per active session "
            f"({mem['redis_entries_per_session']} entries, full hot window); PostgreSQL "
            f"{mem['pg_bytes_per_entry']:.0f} bytes per stored entry (200-char message)."
        )
    server = scale.get("server") or {}
    if server:
        tops = ", ".join(
            f"{lv['ops_per_s']:.0f} ops/s at {lv['clients']}" for lv in server["levels"]
        )
        heads.append(
            f"`unimem serve` RSS {server['rss_idle_mb']:.0f} MB idle, {server['rss_peak_mb']:.0f} "
            f"MB peak under load; throughput {tops} clients."
        )
    out += ["## Headline", "", *(f"- {h}" for h in heads), ""]

    out += ["## Side by side: append one message, read the last 10", ""]
    if anchors:
        rows = []
        base = anchors.get("unimem service")
        sqlite_base = anchors.get("unimem service (SQLite)")
        for name, r in anchors.items():
            ref = sqlite_base if "SQLite" in name or "sqlite3" in name else base
            rows.append(
                [
                    name,
                    r[0],
                    r[1],
                    r[2],
                    r[3],
                    ratio(r[0], ref and ref[0]),
                    ratio(r[2], ref and ref[2]),
                ]
            )
        out += [
            "One operation at a time, 200-character messages, same servers, same run "
            "(`bench/bench_layers.py` for Redis/PostgreSQL systems, `bench/anchors_sqlite.py` "
            "for SQLite ones). Ratios are each system's p50 over unimem's on the same kind "
            "of store (the whole unimem service on Redis + PostgreSQL, or on SQLite): above "
            "1 means slower than unimem. The anchors do less per call (no validation, "
            "language/PHI detection, ordering, idempotency or durability across cache loss).",
            "",
            md_table(
                [
                    "system",
                    "append p50 ms",
                    "p99",
                    "read10 p50 ms",
                    "p99",
                    "append / unimem",
                    "read / unimem",
                ],
                rows,
            ),
            "",
        ]
    if "anchors.png" in made:
        out += [f"![append and read latency by system]({plot_dir}/anchors.png)", ""]
    status = ams_status()
    if status:
        out += [status, ""]
    if http:
        out += [
            "### Over HTTP (`bench/bench_http.py`)",
            "",
            md_table(
                [
                    "backend",
                    "append p50 ms",
                    "p99",
                    "context p50 ms",
                    "p99",
                    "c32 req/s",
                    "c32 append p99",
                    "c32 context p99",
                    "typed append p50",
                    "p99",
                ],
                [[k, *v] for k, v in http.items()],
            ),
            "",
            "Appends are voice turns carrying the language speech-to-text identified "
            "(`language` and `detected_language`, as in the spec's example); typed turns carry "
            "neither, so unimem detects the language. One keep-alive connection per client, "
            "a minimal HTTP/1.1 client (the same for every row, the floor included).",
            "",
        ]
    out += scale_sections(scale, made, plot_dir)
    out += accuracy_sections(runs)
    budgets = ROOT / "bench" / "budgets.md"  # hand-written: the budgets and their profile
    if budgets.is_file():
        out += [budgets.read_text(encoding="utf-8").strip(), ""]
    out += [
        "## Reliability (in the test suite, not here)",
        "",
        "Server-level fault tests run in CI (`tests/reliability/`, real `unimem serve` "
        "subprocesses on SQLite and on Redis + PostgreSQL): repeated SIGKILL under write "
        "load (`test_rel_crash.py`), Redis stop/restart/flush and PostgreSQL outage "
        "(`test_rel_outages.py`), 32 concurrent clients (`test_rel_concurrency.py`), "
        "deletion during in-flight writes checked in SQL and Redis (`test_rel_deletion.py`), "
        "and a hypothesis state machine of the library API (`test_rel_model.py`).",
        "",
        "## Method and raw output",
        "",
        "Each script's docstring states its method; `bench/scale.py`'s:",
        "",
        "```text",
        (scale.get("method") or "(scale.py did not run)").strip(),
        "```",
        "",
    ]
    for result in runs.values():
        out.append(raw_block(result))
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller, shorter runs")
    parser.add_argument("--out", default=str(ROOT / "docs" / "benchmarks.md"))
    parser.add_argument("--plots", default=str(ROOT / "bench" / "plots"))
    args = parser.parse_args()
    text = build(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
