"""Markdown sections of ``docs/benchmarks.md`` built from parsed results."""

from __future__ import annotations

import re
from typing import Any


def md_table(header: list[str], rows: list[list[Any]]) -> str:
    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.3f}" if abs(v) < 10 else f"{v:.1f}" if abs(v) < 1000 else f"{v:,.0f}"
        return str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def language_blocks(text: str) -> dict[str, dict[str, str]]:
    blocks: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        if (
            line
            and not line.startswith(" ")
            and not line.endswith(":")
            and "utterances" not in line
        ):
            current = blocks.setdefault(line.strip(), {})
        elif current is not None and (m := re.match(r"^  (\S.*?)\s{2,}(\S+)$", line)):
            current[m.group(1)] = m.group(2)
        elif not line.strip():
            current = None
    return {k: v for k, v in blocks.items() if v}


def scale_sections(scale: dict[str, Any], made: list[str], plot_dir: str) -> list[str]:
    out: list[str] = []
    for section, key, title in (
        ("history", "size", "Cost as a session's history grows"),
        ("sessions", "sessions", "Cost as the number of sessions grows"),
    ):
        data = scale.get(section) or {}
        if not data:
            continue
        out += [f"## {title}", "", "Milliseconds per call, p50 / p99 (`bench/scale.py`).", ""]
        for backend, rows in data.items():
            table = [
                [
                    f"{r[key]:,}",
                    f"{r['add']['p50']:.2f} / {r['add']['p99']:.2f}",
                    f"{r['context']['p50']:.2f} / {r['context']['p99']:.2f}",
                    f"{r['llm_context']['p50']:.2f} / {r['llm_context']['p99']:.2f}",
                ]
                for r in rows
            ]
            out += [
                f"**{backend}**",
                "",
                md_table([key, "add_entry", "get_context(10)", "build_llm_context"], table),
                "",
            ]
        if f"scale_{section}.png" in made:
            out += [f"![{title}]({plot_dir}/scale_{section}.png)", ""]
    mem = scale.get("memory") or {}
    if mem:
        out += [
            "## Memory per session and per entry",
            "",
            md_table(
                ["measure", "value"],
                [
                    [
                        "Redis bytes per active session (MEMORY USAGE, all keys)",
                        f"{mem['redis_bytes_per_session']:,.0f}",
                    ],
                    [
                        "  sessions x entries",
                        f"{mem['redis_sessions']} x "
                        f"{mem['redis_entries_per_session']} ({mem['redis_keys']} keys)",
                    ],
                    [
                        "PostgreSQL bytes per entry (pg_total_relation_size / count)",
                        f"{mem['pg_bytes_per_entry']:,.0f}",
                    ],
                    ["  entries measured", f"{mem['pg_entries']:,}"],
                ],
            ),
            "",
        ]
    server = scale.get("server") or {}
    if server:
        out += [
            "## `unimem serve` under load (Redis + PostgreSQL)",
            "",
            f"Resident memory: {server['rss_idle_mb']:.0f} MB idle (after the first "
            f"request), {server['rss_peak_mb']:.0f} MB peak under load, "
            f"{server['rss_after_mb']:.0f} MB after. Closed-loop clients alternate append "
            "and context(10); client and server share the machine's cores.",
            "",
            md_table(
                [
                    "clients",
                    "ops/s",
                    "append p50 ms",
                    "append p99",
                    "context p50 ms",
                    "context p99",
                    "errors",
                ],
                [
                    [
                        lv["clients"],
                        lv["ops_per_s"],
                        lv["append_p50"],
                        lv["append_p99"],
                        lv["context_p50"],
                        lv["context_p99"],
                        lv["errors"],
                    ]
                    for lv in server["levels"]
                ],
            ),
            "",
        ]
        if "server_load.png" in made:
            out += [f"![throughput and latency under load]({plot_dir}/server_load.png)", ""]
    return out


def accuracy_sections(runs: dict[str, dict[str, Any]]) -> list[str]:
    out = ["## Accuracy: language and PHI detection", ""]
    blocks = language_blocks(runs["language"]["out"])
    if blocks:
        keys = list(next(iter(blocks.values())))
        out += [
            "Language detection and switch policy on the labelled sets "
            "(`bench/bench_language.py`):",
            "",
            md_table(
                ["detector", *keys], [[n, *(b.get(k, "") for k in keys)] for n, b in blocks.items()]
            ),
            "",
        ]
    else:
        out += [f"Language: no figures ({runs['language']['status']}).", ""]
    text = runs["phi"]["out"]
    sets = re.findall(r"^(\w+): (\d+) gold spans, recall ([\d.]+), precision ([\d.]+)", text, re.M)
    overall = re.search(r"all sets: recall ([\d.]+), precision ([\d.]+)", text)
    if sets:
        rows = [[n, int(g), float(r), float(p)] for n, g, r, p in sets]
        if overall:
            rows.append(
                [
                    "all sets",
                    sum(r[1] for r in rows),
                    float(overall.group(1)),
                    float(overall.group(2)),
                ]
            )
        out += [
            "PHI detection, span overlap with the same type (`bench/bench_phi.py`):",
            "",
            md_table(["set", "gold spans", "recall", "precision"], rows),
            "",
        ]
    else:
        out += [f"PHI: no figures ({runs['phi']['status']}).", ""]
    return out
