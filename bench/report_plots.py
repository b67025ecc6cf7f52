"""The PNG plots of ``docs/benchmarks.md`` (matplotlib, no display needed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plots(scale: dict[str, Any], anchors: dict[str, list[float]], out: Path) -> list[str]:
    """Draw the PNGs; returns their file names (relative to ``out``)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    made: list[str] = []
    for section, key, label in (
        ("history", "size", "entries in the session"),
        ("sessions", "sessions", "sessions in the store"),
    ):
        data = scale.get(section) or {}
        if not data:
            continue
        fig, axes = plt.subplots(1, len(data), figsize=(6 * len(data), 4), squeeze=False)
        for ax, (backend, rows) in zip(axes[0], data.items(), strict=True):
            xs = [r[key] for r in rows]
            for op, style in (("add", "o-"), ("context", "s-"), ("llm_context", "^-")):
                ax.plot(xs, [r[op]["p50"] for r in rows], style, label=f"{op} p50")
                ax.plot(xs, [r[op]["p99"] for r in rows], style, alpha=0.35, label=f"{op} p99")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(label)
            ax.set_ylabel("ms per call")
            ax.set_title(f"{backend}: cost vs {label}")
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize=7)
        fig.tight_layout()
        name = f"scale_{section}.png"
        fig.savefig(out / name, dpi=110)
        plt.close(fig)
        made.append(name)
    server = scale.get("server") or {}
    if server.get("levels"):
        levels = server["levels"]
        xs = [lv["clients"] for lv in levels]
        fig, (a, b) = plt.subplots(1, 2, figsize=(12, 4))
        a.plot(xs, [lv["ops_per_s"] for lv in levels], "o-")
        a.set_xscale("log", base=2)
        a.set_xlabel("concurrent clients")
        a.set_ylabel("operations / s (append + context)")
        a.set_title("unimem serve throughput (Redis + PostgreSQL)")
        for op in ("append", "context"):
            b.plot(xs, [lv[f"{op}_p50"] for lv in levels], "o-", label=f"{op} p50")
            b.plot(xs, [lv[f"{op}_p99"] for lv in levels], "s--", label=f"{op} p99")
        b.set_xscale("log", base=2)
        b.set_yscale("log")
        b.set_xlabel("concurrent clients")
        b.set_ylabel("ms")
        b.set_title("latency under load")
        b.legend()
        for ax in (a, b):
            ax.grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "server_load.png", dpi=110)
        plt.close(fig)
        made.append("server_load.png")
    if anchors:
        names = list(anchors)
        fig, ax = plt.subplots(figsize=(10, 0.45 * len(names) + 1.5))
        ys = range(len(names))
        ax.barh([y - 0.2 for y in ys], [anchors[n][0] for n in names], 0.4, label="append p50")
        ax.barh(
            [y + 0.2 for y in ys], [anchors[n][2] for n in names], 0.4, label="read last 10 p50"
        )
        ax.set_yticks(list(ys), names, fontsize=8)
        ax.set_xscale("log")
        ax.set_xlabel("ms (log scale)")
        ax.set_title("append one / read last 10, one at a time, same run")
        ax.legend()
        ax.grid(True, axis="x", which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(out / "anchors.png", dpi=110)
        plt.close(fig)
        made.append("anchors.png")
    return made
