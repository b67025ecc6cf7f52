"""One lock per key, dropped only when no caller holds or waits for it."""

from __future__ import annotations

import asyncio

from unimem.service.keyed_locks import KeyedLocks


async def test_callers_of_one_key_never_overlap_even_across_a_handover():
    """The old flaw: between a release and the next waiter's wakeup the lock reads
    as free; a lock dropped then let a newcomer run beside that waiter."""
    locks: KeyedLocks[str] = KeyedLocks()
    inside: list[str] = []
    most = 0

    async def work(name: str, pause: float) -> None:
        nonlocal most
        async with locks.hold("u"):
            inside.append(name)
            most = max(most, len(inside))
            await asyncio.sleep(pause)
            inside.remove(name)

    first = asyncio.create_task(work("a", 0.02))
    await asyncio.sleep(0)
    second = asyncio.create_task(work("b", 0.02))
    await asyncio.sleep(0.021)  # "a" has released; "b" is woken but not yet running
    third = asyncio.create_task(work("c", 0.0))
    await asyncio.gather(first, second, third)
    assert most == 1
    assert len(locks) == 0 and "u" not in locks


async def test_other_keys_do_not_wait_and_a_failure_releases():
    locks: KeyedLocks[str] = KeyedLocks()
    async with locks.hold("a"):
        assert "a" in locks
        async with asyncio.timeout(1):
            async with locks.hold("b"):
                assert len(locks) == 2
    try:
        async with locks.hold("a"):
            raise ValueError("boom")
    except ValueError:
        pass
    assert len(locks) == 0
