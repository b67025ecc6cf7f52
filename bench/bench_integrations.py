"""What the framework adapters cost: the time each adds to a voice turn, and the
OpenAI Agents session beside the SDK's own sessions.

Usage: python bench/bench_integrations.py [--turns 100] [--ops 300] [--check] [--sessions-only]
       [--gaps-ms 300,0] [--no-freeze]
       [--redis redis://127.0.0.1:6379/0] [--pg postgresql://postgres@127.0.0.1:5432/test]

One run, same servers, on the in-process store and on Redis + PostgreSQL (a
scratch schema / key prefix, removed at the end). Each session starts with 20
stored turns and one pinned fact, so unimem's context has real work to do.
The process starts as a deployed voice worker does: the models unimem loads on
first use are loaded (``unimem.integrations.prewarm``), then everything loaded
is frozen out of the garbage collector (``gc.freeze()``, as ``unimem serve``
does and LiveKit's worker does for its job processes); ``--no-freeze`` leaves
the collector walking it (a full collection then takes some 200 ms with the
frameworks imported).

What a turn waits for. A voice framework has the user's words (the final
transcription) before it calls the LLM: it first waits to be sure the user has
finished (Pipecat's speech timeout, 0.6 s after the VAD's stop; LiveKit's
endpointing, at least 0.5 s), and the STT's final text comes some 100-300 ms
after the end of speech. Each turn here sends the final transcription, waits
the *gap* (``--gaps-ms``, default 300 ms, a typical pipeline, and 0 ms, the
final text arriving as the turn ends), then ends the turn; the time is taken
from the end of the turn (the moment the framework, without unimem, would
call the LLM) to the LLM having its context. Whatever memory does before that,
in the gap, is not waited for; what it has not done by then is.

* Pipecat: a real ``Pipeline`` (``PipelineWorker`` + ``WorkerRunner``, with the
  processor's ``transcription_observer``) of the processor under test and a
  probe standing for the LLM. The final ``TranscriptionFrame``, the gap, then
  the user aggregator's ``LLMContextUserTurnFrame`` and ``LLMContextFrame``,
  timed from queueing the latter to the probe receiving the context (the
  answer, an ``LLMContextAssistantTurnFrame`` sent back upstream, is stored in
  the background). The same pipeline with a pass-through processor in its
  place is the baseline; "added" is the difference of the two, p50 and p99.
* LiveKit Agents: the adapter's work on a turn's path, with LiveKit's own
  objects: the final ``user_input_transcribed`` event, the gap, then
  ``UnimemAgent.on_user_turn_completed`` (LiveKit awaits it before the reply;
  unimem's context goes into ``turn_ctx``) plus the ``conversation_item_added``
  handler for the user message and for the answer (called inline by the
  session; the writes go to the background); the hook and the handlers are timed.
* "late": turns whose context was not ready in time (the user's entry records
  ``memory_context_not_ready``; the call went on with what was ready). "build":
  each context build's own time, wherever it ran.
* In both, the background writes of a turn finish before the next turn starts
  (untimed), as between the turns of a conversation.
* OpenAI Agents SDK: ``UnimemSession`` (on both stores, on a SQLite file,
  and remote: a ``MemoryClient`` to ``unimem serve`` on a SQLite file in
  another process) beside ``SQLiteSession`` (a file) and ``RedisSession``: add
  one item, read the last 10, round robin (one add and one read of each in
  turn, in a new order each round, so load from elsewhere hits all alike).
  Beside each ``UnimemSession`` on a store, the same entries written and read
  by the service itself (``add_entry``, ``get_history``): the difference is
  the adapter's own cost.

Prints p50/p99 in milliseconds and the load average; the adapters' added time
must stay within 5 ms at p50 and p99 (``--check``: exit 1 if not).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg
import redis.asyncio as aioredis
from agents import SQLiteSession
from agents.extensions.memory import RedisSession
from bench_http import SECRET, serve
from livekit.agents import ConversationItemAddedEvent, UserInputTranscribedEvent, llm
from pipecat.frames.frames import (
    Frame,
    LLMContextAssistantTurnFrame,
    LLMContextFrame,
    LLMContextUserTurnFrame,
    TranscriptionFrame,
)
from pipecat.pipeline.pipeline import Pipeline
from pipecat.pipeline.worker import PipelineWorker
from pipecat.processors.aggregators.llm_context import LLMContext
from pipecat.processors.frame_processor import FrameDirection, FrameProcessor
from pipecat.transcriptions.language import Language
from pipecat.workers.runner import WorkerRunner

from unimem import MemoryEntry, UnifiedMemoryService
from unimem.client import MemoryClient
from unimem.integrations import prewarm
from unimem.integrations.livekit import AgentMemory, UnimemAgent
from unimem.integrations.openai_agents import UnimemSession, entry_from_item
from unimem.integrations.pipecat import UnimemMemoryProcessor
from unimem.server.auth import issue_token
from unimem.stores.layered import LayeredStore
from unimem.stores.postgres.store import PostgresStore
from unimem.stores.redis import SessionCache, redis_client_from_url

QUESTION = "I still have a dry cough at night, should I change the syrup dose or wait?"
ANSWER = "Keep the same dose for two more days, and call the clinic if the cough gets worse."
LIMIT_MS = 5.0
#: Untimed turns first (pools fill, caches warm).
WARMUP = 5
#: What the user entry of a turn whose context was late records.
LATE = "memory_context_not_ready"

Op = Callable[[], Awaitable[Any]]


class TimedMemory:
    """The memory service, with the time of each ``build_llm_context`` noted
    (wherever it runs: on the turn's path, or ahead of it)."""

    def __init__(self, memory: UnifiedMemoryService) -> None:
        self.memory = memory
        self.builds: list[float] = []

    async def build_llm_context(self, *args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return await self.memory.build_llm_context(*args, **kwargs)
        finally:
            self.builds.append((time.perf_counter() - t0) * 1000)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.memory, name)


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def seed(memory: UnifiedMemoryService, session_id: str) -> None:
    """20 stored turns and a pinned fact: the work a real conversation gives."""
    await memory.add_fact("bench", "allergic to penicillin")
    for i in range(10):
        for role, text in (("user", QUESTION), ("assistant", ANSWER)):
            entry = MemoryEntry(role=role, content=f"{text} ({i})", mode="voice", language="en")
            await memory.add_entry(session_id, entry, user_id="bench")


# ---------------------------------------------------------------------- Pipecat


class Probe(FrameProcessor):
    """Stands for the LLM: notes when a context arrives, answers upstream."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = asyncio.Event()
        self.at = 0.0

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        if isinstance(frame, LLMContextFrame):
            self.at = time.perf_counter()
            self.arrived.set()
            await self.push_frame(
                LLMContextAssistantTurnFrame(text=ANSWER, timestamp=""), FrameDirection.UPSTREAM
            )
            return
        await self.push_frame(frame, direction)


class PassThrough(FrameProcessor):
    """The baseline: a processor that passes every frame on."""

    async def process_frame(self, frame: Frame, direction: FrameDirection) -> None:
        await super().process_frame(frame, direction)
        await self.push_frame(frame, direction)


async def pipecat_turns(processor: FrameProcessor, turns: int, gap_s: float) -> list[float]:
    """Milliseconds from the end of a user turn (its final transcription
    ``gap_s`` before) to the LLM receiving its context."""
    probe = Probe()
    observers = (
        [processor.transcription_observer] if isinstance(processor, UnimemMemoryProcessor) else []
    )
    task = PipelineWorker(
        Pipeline([processor, probe]), observers=observers, cancel_on_idle_timeout=False
    )
    runner = WorkerRunner(handle_sigint=False)
    await runner.add_workers(task)
    running = asyncio.create_task(runner.run())
    await asyncio.sleep(0.3)  # started
    out: list[float] = []
    for turn in range(WARMUP + turns):
        context = LLMContext(messages=[{"role": "user", "content": QUESTION}])
        probe.arrived.clear()
        heard = TranscriptionFrame(
            text=QUESTION, user_id="bench", timestamp="", language=Language.EN
        )
        await task.queue_frames([heard])
        await asyncio.sleep(gap_s)
        t0 = time.perf_counter()
        await task.queue_frames(
            [LLMContextUserTurnFrame(text=QUESTION, timestamp=""), LLMContextFrame(context)]
        )
        await probe.arrived.wait()
        if turn >= WARMUP:
            out.append((probe.at - t0) * 1000)
        if isinstance(processor, UnimemMemoryProcessor):
            await asyncio.sleep(0)  # let the answer frame reach the processor
            await processor.flush()
    await task.cancel()
    await running
    return out


# ---------------------------------------------------------------------- LiveKit


async def livekit_turns(
    memory: TimedMemory, session_id: str, turns: int, gap_s: float
) -> list[float]:
    """Milliseconds the adapter spends on a turn's path after the end of the
    turn (its final transcript ``gap_s`` before)."""
    agent_memory = AgentMemory(memory, session_id, user_id="bench")  # type: ignore[arg-type]
    agent = UnimemAgent(memory=agent_memory, instructions="You are a nurse.")
    out: list[float] = []
    for turn in range(WARMUP + turns):
        turn_ctx = llm.ChatContext()
        turn_ctx.add_message(role="system", content="You are a nurse.")
        question = llm.ChatMessage(role="user", content=[QUESTION])
        answer = llm.ChatMessage(role="assistant", content=[ANSWER])
        heard = UserInputTranscribedEvent(transcript=QUESTION, is_final=True, language="en")
        agent_memory.on_user_input_transcribed(heard)
        await asyncio.sleep(gap_s)
        t0 = time.perf_counter()
        await agent.on_user_turn_completed(turn_ctx, question)
        agent_memory.on_conversation_item_added(ConversationItemAddedEvent(item=question))
        agent_memory.on_conversation_item_added(ConversationItemAddedEvent(item=answer))
        if turn >= WARMUP:
            out.append((time.perf_counter() - t0) * 1000)
        await agent_memory.flush()
    await agent_memory.aclose()
    return out


async def late_turns(memory: UnifiedMemoryService, session_id: str, turns: int) -> int:
    """How many of the session's last ``turns`` user entries record a late context."""
    history = await memory.get_history(session_id, 2 * turns, user_id="bench")
    users = [e for e in history if e.role.value == "user"][-turns:]
    return sum(LATE in e.degradations for e in users)


# ---------------------------------------------------------------------- Agents SDK


class ServiceDirect:
    """The service's own calls for what ``UnimemSession`` does: the same entry
    (``entry_from_item``) by ``add_entry``, the last 10 by ``get_history``."""

    def __init__(self, memory: UnifiedMemoryService, session_id: str) -> None:
        self.memory, self.session_id = memory, session_id

    async def add_items(self, items: list[dict[str, Any]]) -> None:
        for item in items:
            entry = entry_from_item(item)
            await self.memory.add_entry(self.session_id, entry, user_id="bench")

    async def get_items(self, limit: int) -> list[MemoryEntry]:
        return await self.memory.get_history(self.session_id, limit, user_id="bench")


async def session_ops(
    subjects: dict[str, Any], ops: int
) -> dict[str, tuple[list[float], list[float]]]:
    """(add one item, read the last 10) in milliseconds, ``ops`` of each, for
    every subject in turn (warm-up first, untimed)."""
    item = {"role": "user", "content": QUESTION}
    results: dict[str, tuple[list[float], list[float]]] = {n: ([], []) for n in subjects}
    order = list(subjects)
    shuffle = random.Random(7).shuffle
    for round_ in range(WARMUP * 4 + ops):
        shuffle(order)
        for name in order:
            session = subjects[name]
            t0 = time.perf_counter()
            await session.add_items([item])
            t1 = time.perf_counter()
            await session.get_items(limit=10)
            t2 = time.perf_counter()
            if round_ >= WARMUP * 4:
                results[name][0].append((t1 - t0) * 1000)
                results[name][1].append((t2 - t1) * 1000)
    return results


# ---------------------------------------------------------------------- run


@asynccontextmanager
async def stores(args: argparse.Namespace) -> AsyncIterator[dict[str, UnifiedMemoryService]]:
    """The two stores the adapters run on, in a scratch schema / key prefix."""
    tag = uuid.uuid4().hex[:8]
    schema, prefix = f"bench_{tag}", f"bench{tag}"
    admin = await asyncpg.connect(args.pg)
    await admin.execute(f'CREATE SCHEMA "{schema}"')
    layered = UnifiedMemoryService(
        LayeredStore(
            PostgresStore(args.pg, schema=schema),
            SessionCache(redis_client_from_url(args.redis), prefix=prefix),
        )
    )
    try:
        async with UnifiedMemoryService() as in_process, layered:
            yield {"in-process": in_process, "redis-postgres": layered}
    finally:
        await admin.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
        await admin.close()
        redis = aioredis.Redis.from_url(args.redis)
        keys = [k async for k in redis.scan_iter(f"{prefix}*")]
        if keys:
            await redis.delete(*keys)
        await redis.aclose()


def line(name: str, samples: list[float]) -> str:
    return f"{name:52} {pct(samples, 0.5):>8.3f} {pct(samples, 0.99):>8.3f}"


def start_like_a_worker(freeze: bool) -> None:
    """Load what unimem loads on first use, then (``freeze``) move everything
    loaded out of the collector's reach, as a deployed voice worker starts."""
    prewarm(("gpt-4o",))
    if freeze:
        gc.collect()
        gc.freeze()


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


async def run(args: argparse.Namespace) -> None:
    start_like_a_worker(not args.no_freeze)
    gaps = [float(g) for g in args.gaps_ms.split(",") if g.strip()]
    print(f"({load()} at the start; gc {'not ' if args.no_freeze else ''}frozen)")
    print(f"{'turn (ms)':52} {'p50':>8} {'p99':>8}")
    over: list[str] = []

    def check(name: str, samples: list[float]) -> None:
        if pct(samples, 0.5) > LIMIT_MS or pct(samples, 0.99) > LIMIT_MS:
            over.append(f"{name}: p50 {pct(samples, 0.5):.2f} p99 {pct(samples, 0.99):.2f} ms")

    async with stores(args) as services:
        for gap_ms in gaps if not args.sessions_only else ():
            gap_s = gap_ms / 1000
            print(f"-- final transcript {gap_ms:.0f} ms before the end of the turn")
            baseline = await pipecat_turns(PassThrough(), args.turns, gap_s)
            print(line("Pipecat pipeline, pass-through (baseline)", baseline))
            for name, memory in services.items():
                session_id = f"pc-{name}-{gap_ms:.0f}"
                await seed(memory, session_id)
                timed = TimedMemory(memory)
                processor = UnimemMemoryProcessor(timed, session_id, user_id="bench")  # type: ignore[arg-type]
                turns = await pipecat_turns(processor, args.turns, gap_s)
                added = [t - pct(baseline, 0.5) for t in turns]
                late = await late_turns(memory, session_id, args.turns)
                print(line(f"Pipecat UnimemMemoryProcessor, {name}", turns))
                print(line("  added to the turn", added) + f"   late {late}/{args.turns}")
                print(line("  build (each context build)", timed.builds[WARMUP:]))
                check(f"Pipecat on {name}, gap {gap_ms:.0f} ms, added", added)
            for name, memory in services.items():
                session_id = f"lk-{name}-{gap_ms:.0f}"
                await seed(memory, session_id)
                timed = TimedMemory(memory)
                turns = await livekit_turns(timed, session_id, args.turns, gap_s)
                late = await late_turns(memory, session_id, args.turns)
                print(
                    line(f"LiveKit UnimemAgent + AgentMemory, {name}", turns)
                    + f"   late {late}/{args.turns}"
                )
                print(line("  build (each context build)", timed.builds[WARMUP:]))
                check(f"LiveKit on {name}, gap {gap_ms:.0f} ms", turns)
            print(f"({load()})")
        if args.turns_only:
            results: dict[str, tuple[list[float], list[float]]] = {}
        else:
            results = await agents_sessions(args, services)
    if results:
        print(f"({load()} at the end)")
        for name, (adds, reads) in results.items():
            print(
                f"{name:52} {pct(adds, 0.5):>8.3f} {pct(adds, 0.99):>8.3f} "
                f"{pct(reads, 0.5):>10.3f} {pct(reads, 0.99):>8.3f}"
            )
        redis_total = statistics.median(
            a + r for a, r in zip(*results["RedisSession"], strict=True)
        )
        for name in (n for n in results if n.startswith("UnimemSession")):
            total = statistics.median(a + r for a, r in zip(*results[name], strict=True))
            print(f"{name}: (add + read10) / RedisSession = {total / redis_total:.2f}x")
    if over:
        print("\nover the 5 ms an adapter may add to a turn: " + "; ".join(over))
        if args.check:
            raise SystemExit(1)


async def agents_sessions(
    args: argparse.Namespace, services: dict[str, UnifiedMemoryService]
) -> dict[str, tuple[list[float], list[float]]]:
    """The Agents SDK sessions, unimem's and the SDK's own, round robin."""
    print(
        f"\n{'OpenAI Agents session (ms)':52} {'add p50':>8} {'p99':>8}"
        f" {'read10 p50':>10} {'p99':>8}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        # the durable store of one machine, beside the SDK's own file
        on_file = UnifiedMemoryService.from_url(f"sqlite:///{Path(tmp) / 'unimem.db'}")
        await on_file.setup()
        stores_ = {**services, "sqlite (file)": on_file}
        subjects: dict[str, Any] = {}
        for i, (name, memory) in enumerate(stores_.items()):
            subjects[f"UnimemSession, {name}"] = UnimemSession(memory, f"oa-{i}", user_id="bench")
            subjects[f"  service add_entry / get_history, {name}"] = ServiceDirect(
                memory, f"svc-{i}"
            )
        subjects["SQLiteSession (file)"] = SQLiteSession("oa", str(Path(tmp) / "agents.db"))
        client = aioredis.Redis.from_url(args.redis)
        redis_session = RedisSession(
            "oa", redis_client=client, key_prefix=f"bench{uuid.uuid4().hex[:8]}", ttl=3600
        )
        subjects["RedisSession"] = redis_session
        remote_db = f"sqlite:///{Path(tmp) / 'served.db'}"
        async with serve({"UNIMEM_DATABASE_URL": remote_db}) as (port, _):
            remote = MemoryClient(
                f"http://127.0.0.1:{port}", token=issue_token(SECRET, "bench", 3600)
            )
            subjects["UnimemSession, remote (MemoryClient, sqlite)"] = UnimemSession(
                remote, "oa-remote"
            )
            results = await session_ops(subjects, args.ops)
            await remote.aclose()
        await redis_session.clear_session()
        await client.aclose()
        await on_file.aclose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--ops", type=int, default=300)
    parser.add_argument("--check", action="store_true", help="exit 1 when over the 5 ms")
    parser.add_argument(
        "--sessions-only", action="store_true", help="the Agents SDK sessions alone"
    )
    parser.add_argument("--turns-only", action="store_true", help="the voice turns alone")
    parser.add_argument(
        "--gaps-ms", default="300,0", help="ms from the final transcript to the end of the turn"
    )
    parser.add_argument("--no-freeze", action="store_true", help="leave the collector walking")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
