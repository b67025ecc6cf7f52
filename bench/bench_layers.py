"""unimem on Redis + PostgreSQL against the floors and the libraries people use.

Usage: python bench/bench_layers.py [--ops 500] [--history 100]
       [--redis redis://127.0.0.1:6379/0] [--pg postgresql://postgres@127.0.0.1:5432/test]

One run, same servers, one operation at a time, 200-character messages:

* append one message / read the last 10 messages of a session, for
  - unimem service (``add_entry``: validation, PHI detection, the user's
    settings, durable PostgreSQL commit, Redis hot window + short-term layer;
    the turn carries ``language`` and ``detected_language`` as in the spec's
    example, so the language is not detected again; the row "language
    detected" sends a typed turn without them, which unimem detects; the row
    "PHI redacted" a voice turn with a phone number;
    ``get_history(max_messages=10)``: the last 10 with the owner check, from
    Redis in one round trip). ``get_context`` (the last 10 plus mode,
    language, switch events, settings and cross-session recall, also one round
    trip) is timed in the same loop and printed below the table.
  - unimem layers (the same storage work without detection: ``LayeredStore``)
  - raw redis-py pipeline floor (RPUSH + LTRIM + EXPIRE / LRANGE)
  - raw asyncpg floor (INSERT / SELECT ... ORDER BY seq DESC LIMIT 10)
  - OpenAI Agents SDK ``RedisSession`` and LangChain ``PostgresChatMessageHistory``
    when installed (``pip install -e .[bench]``); each of them does less (no
    durability across Redis loss, or no hot cache, no order/idempotency rules).

Prints p50/p99 in milliseconds and the ratios the design targets:
durable append of a typed turn ("language detected": language and PHI
detection on) <= 1.8 x (redis floor + postgres floor), last-10 read <= 1.5 x
redis floor.
Everything it creates lives in a scratch schema / key prefix, removed at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import asyncpg
import redis.asyncio as aioredis

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.ids import new_id
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.redis import SessionCache, redis_client_from_url

MESSAGE = (
    "I have been taking metformin twice a day with meals and I would like to know "
    "whether I should change the dose now that my blood sugar readings in the morning "
    "are lower than they were."
)[:200]

Op = Callable[[], Awaitable[Any]]


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def timed(op: Op, n: int) -> list[float]:
    out: list[float] = []
    for _ in range(n):
        t0 = time.perf_counter()
        await op()
        out.append((time.perf_counter() - t0) * 1000)
    return out


class Subject:
    """One system under test: how it appends and how it reads the last 10
    (``extra``: another read timed in the same loop)."""

    def __init__(self, name: str, append: Op, read: Op, extra: Op | None = None) -> None:
        self.name, self.append, self.read, self.extra = name, append, read, extra


async def run(args: argparse.Namespace) -> None:
    tag = uuid.uuid4().hex[:8]
    schema, prefix = f"bench_{tag}", f"bench{tag}"
    admin = await asyncpg.connect(args.pg)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    redis = aioredis.Redis.from_url(args.redis)
    subjects: list[Subject] = []
    closers: list[Callable[[], Awaitable[Any]]] = []
    try:
        # -- unimem, the whole service
        svc_store = LayeredStore(
            PostgresStore(args.pg, schema=schema),
            SessionCache(redis_client_from_url(args.redis), prefix=prefix),
        )
        service = UnifiedMemoryService(svc_store)
        await service.setup()
        closers.append(service.aclose)

        async def svc_append() -> None:
            # as in the spec's example: the voice pipeline's speech-to-text already
            # identified the language, so unimem does not detect it again
            entry = MemoryEntry(role="user", content=MESSAGE, language="en", detected_language="en")
            await service.add_entry("svc", entry, user_id="bench")

        phi_turns = iter(range(10**9))

        async def svc_phi_append() -> None:
            # a voice turn with a phone number: redacted to [PHONE_n] before it is
            # stored, its phi_detected event in the same transaction
            number = f"617 555 {next(phi_turns) % 10_000:04d}"
            text = f"please call me back at {number} about the dose change. " + MESSAGE
            entry = MemoryEntry(
                role="user", content=text[:200], language="en", detected_language="en"
            )
            await service.add_entry("svc-phi", entry, user_id="bench")

        async def svc_detect_append() -> None:
            # a typed turn: unimem detects the language (lingua) before storing
            await service.add_entry(
                "svc-text", MemoryEntry(role="user", content=MESSAGE), user_id="bench"
            )

        subjects.append(
            Subject(
                "unimem service",
                svc_append,
                lambda: service.get_history("svc", max_messages=10, user_id="bench"),
                lambda: service.get_context("svc", max_messages=10, user_id="bench"),
            )
        )

        subjects.append(
            Subject(
                "unimem service, language detected",
                svc_detect_append,
                lambda: service.get_history("svc-text", max_messages=10, user_id="bench"),
            )
        )

        subjects.append(
            Subject(
                "unimem service, PHI redacted",
                svc_phi_append,
                lambda: service.get_history("svc-phi", max_messages=10, user_id="bench"),
            )
        )

        # -- unimem storage layers alone (what the service adds on top is detection)
        layers = svc_store
        seq_user = "bench-layers"

        async def layers_append() -> None:
            entry = MemoryEntry.model_construct(
                **{
                    **MemoryEntry(role="user", content=MESSAGE, language="en").__dict__,
                    "id": new_id(),
                    "session_id": "layers",
                    "user_id": seq_user,
                    "timestamp": datetime.now(UTC),
                }
            )
            await layers.append_entry(entry)

        subjects.append(
            Subject(
                "unimem layers",
                layers_append,
                lambda: layers.load_context("layers", max_messages=10, event_limit=5),
            )
        )

        # -- raw redis-py floor
        key = f"{prefix}:floor"
        payload = json.dumps({"role": "user", "content": MESSAGE})

        async def redis_append() -> None:
            pipe = redis.pipeline(transaction=False)
            pipe.rpush(key, payload)
            pipe.ltrim(key, -50, -1)
            pipe.expire(key, 86400)
            await pipe.execute()

        async def redis_read() -> list[Any]:
            return [json.loads(x) for x in await redis.lrange(key, -10, -1)]

        subjects.append(Subject("redis-py floor", redis_append, redis_read))
        closers.append(lambda: redis.delete(key))

        # -- raw asyncpg floor
        pool = await asyncpg.create_pool(
            args.pg, min_size=1, max_size=2, server_settings={"search_path": schema}
        )
        closers.append(pool.close)
        async with pool.acquire() as conn:
            await conn.execute(
                "CREATE TABLE floor (session_id text, seq bigserial, data text, "
                "PRIMARY KEY (session_id, seq))"
            )

        async def pg_append() -> None:
            await pool.execute("INSERT INTO floor (session_id, data) VALUES ('s', $1)", payload)

        async def pg_read() -> list[Any]:
            rows = await pool.fetch(
                "SELECT data FROM floor WHERE session_id = 's' ORDER BY seq DESC LIMIT 10"
            )
            return [json.loads(r[0]) for r in rows]

        subjects.append(Subject("asyncpg floor", pg_append, pg_read))

        subjects += await optional_anchors(args, schema, prefix, closers)

        for subject in subjects:  # same history length everywhere
            for _ in range(args.history):
                await subject.append()
        for subject in subjects:  # warm-up
            await timed(subject.append, 30)
            await timed(subject.read, 30)
        # round robin, so that load from elsewhere on the machine hits every system
        # alike, in a new order each round, so that no system always runs right
        # after the same one (after LangChain's 5 ms read, say, with cold CPU caches)
        appends: dict[str, list[float]] = {s.name: [] for s in subjects}
        reads: dict[str, list[float]] = {s.name: [] for s in subjects}
        extras: dict[str, list[float]] = {s.name: [] for s in subjects if s.extra}
        shuffle = random.Random(args.seed).shuffle
        order = list(subjects)
        for _ in range(args.ops):
            shuffle(order)
            for subject in order:
                appends[subject.name] += await timed(subject.append, 1)
                reads[subject.name] += await timed(subject.read, 1)
                if subject.extra is not None:
                    extras[subject.name] += await timed(subject.extra, 1)
        results = {
            name: {
                "append_p50": statistics.median(appends[name]),
                "append_p99": pct(appends[name], 0.99),
                "read_p50": statistics.median(reads[name]),
                "read_p99": pct(reads[name], 0.99),
            }
            for name in appends
        }
        report(results)
        if extras:
            print("\nget_context: the last 10 plus state, switch events, settings and")
            print("cross-session turns (ms p50, p99), timed in the same loop:")
        for name, samples in extras.items():
            print(
                f"{name + ' get_context':38} {statistics.median(samples):>10.3f} "
                f"{pct(samples, 0.99):>7.3f}"
            )
    finally:
        for close in reversed(closers):
            try:
                await close()
            except Exception as exc:  # keep cleaning up
                print(f"cleanup: {type(exc).__name__}")
        async for k in redis.scan_iter(match=f"{prefix}*"):
            await redis.delete(k)
        await redis.aclose()
        await admin.execute(f'DROP SCHEMA "{schema}" CASCADE')
        await admin.close()


async def optional_anchors(
    args: argparse.Namespace, schema: str, prefix: str, closers: list[Any]
) -> list[Subject]:
    found: list[Subject] = []
    try:
        from agents.extensions.memory import RedisSession
    except ImportError as exc:
        print(f"(skipping OpenAI Agents SDK RedisSession: {exc})")
    else:
        client = aioredis.Redis.from_url(args.redis)
        session = RedisSession(
            "anchor", redis_client=client, key_prefix=f"{prefix}agents", ttl=86400
        )
        closers.append(client.aclose)
        closers.append(session.clear_session)
        item = {"role": "user", "content": MESSAGE}
        found.append(
            Subject(
                "OpenAI Agents RedisSession",
                lambda: session.add_items([item]),  # type: ignore[list-item]
                lambda: session.get_items(limit=10),
            )
        )
    try:
        import psycopg
        from langchain_core.messages import HumanMessage
        from langchain_postgres import PostgresChatMessageHistory
    except ImportError as exc:
        print(f"(skipping LangChain PostgresChatMessageHistory: {exc})")
    else:
        conn = await psycopg.AsyncConnection.connect(
            args.pg, autocommit=True, options=f"-c search_path={schema}"
        )
        closers.append(conn.close)
        await PostgresChatMessageHistory.acreate_tables(conn, "lc_history")
        history = PostgresChatMessageHistory("lc_history", str(uuid.uuid4()), async_connection=conn)

        async def lc_read() -> list[Any]:
            return list(await history.aget_messages())[-10:]  # it reads the whole session

        found.append(
            Subject(
                "LangChain PostgresChatMessageHistory",
                lambda: history.aadd_messages([HumanMessage(MESSAGE)]),
                lc_read,
            )
        )
    return found


def report(results: dict[str, dict[str, float]]) -> None:
    print(f"\n{'system':38} {'append p50':>10} {'p99':>7} {'read10 p50':>10} {'p99':>7}  (ms)")
    for name, r in results.items():
        print(
            f"{name:38} {r['append_p50']:>10.3f} {r['append_p99']:>7.3f} "
            f"{r['read_p50']:>10.3f} {r['read_p99']:>7.3f}"
        )
    floor_w = results["redis-py floor"]["append_p50"] + results["asyncpg floor"]["append_p50"]
    floor_r = results["redis-py floor"]["read_p50"]
    print(f"\nfloors: append redis+postgres {floor_w:.3f} ms, read redis {floor_r:.3f} ms")
    for name in (
        "unimem layers",
        "unimem service",
        "unimem service, language detected",
        "unimem service, PHI redacted",
    ):
        r = results[name]
        print(
            f"{name:16} append / (redis+pg floor) = {r['append_p50'] / floor_w:.2f}x (target 1.8x)"
            f"   read10 / redis floor = {r['read_p50'] / floor_r:.2f}x (target 1.5x)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=500)
    parser.add_argument("--history", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1, help="seed of the per-round order")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
