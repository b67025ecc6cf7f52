"""A session belongs to the user who first wrote to it: to another user it is
a session never used (every read and delete answers exactly as for an unused
id; a write that would create it is 404), and nothing of the owner's changes."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from server_support import asgi_client, auth, create_app, settings

OWNED = "visit-alice"

#: (method, path, json body, query) of every route about one session.
SESSION_CALLS: list[tuple[str, str, dict[str, Any] | None, dict[str, Any] | None]] = [
    ("POST", "/v1/sessions/{sid}/entries", {"role": "user", "content": "bob was here"}, None),
    ("GET", "/v1/sessions/{sid}/context", None, None),
    ("GET", "/v1/sessions/{sid}/history", None, None),
    ("GET", "/v1/sessions/{sid}", None, None),
    ("POST", "/v1/sessions/{sid}/events", {"event_type": "topic_change", "data": {}}, None),
    ("GET", "/v1/sessions/{sid}/events", None, None),
    ("POST", "/v1/sessions/{sid}/mode-switch", {"from_mode": "voice", "to_mode": "text"}, None),
    (
        "POST",
        "/v1/sessions/{sid}/language-switch",
        {"from_language": "en", "to_language": "fr"},
        None,
    ),
    ("POST", "/v1/sessions/{sid}/llm-context", {"current_query": "what did she say?"}, None),
    ("POST", "/v1/sessions/{sid}/entries/{eid}/interrupted", {"spoken_text": "I"}, None),
    ("POST", "/v1/sessions/{sid}/entries/{eid}/pin", None, None),
    ("DELETE", "/v1/sessions/{sid}/entries/{eid}", None, None),
    ("POST", "/v1/sessions/{sid}/extend-ttl", None, None),
    ("POST", "/v1/sessions/{sid}/reply", {}, None),
    ("POST", "/v1/sessions/{sid}/close", None, None),
    ("DELETE", "/v1/me/memory", None, {"scope": "session", "session_id": "{sid}"}),
    ("GET", "/v1/me/search", None, {"q": "food", "session_id": "{sid}"}),
]


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[httpx.AsyncClient]:
    async with asgi_client(create_app(settings(tmp_path))) as c:
        yield c


async def _alice_session(client: httpx.AsyncClient) -> str:
    r = await client.post(
        f"/v1/sessions/{OWNED}/entries",
        json={"role": "assistant", "content": "Take it with food.", "mode": "voice"},
        headers=auth("alice"),
    )
    assert r.status_code == 201
    entry_id: str = r.json()["id"]
    return entry_id


async def _snapshot(client: httpx.AsyncClient) -> tuple[Any, ...]:
    h = auth("alice")
    return (
        (await client.get(f"/v1/sessions/{OWNED}/history", headers=h)).json(),
        (await client.get(f"/v1/sessions/{OWNED}/events", headers=h)).json(),
        (await client.get(f"/v1/sessions/{OWNED}", headers=h)).json(),
    )


#: Writes that create a session never used: another user's answers 404 instead
#: (the one way an id's use shows, which is why session ids should be unguessable).
CREATING = {
    ("POST", "/v1/sessions/{sid}/entries"),
    ("POST", "/v1/sessions/{sid}/events"),
    ("POST", "/v1/sessions/{sid}/mode-switch"),
    ("POST", "/v1/sessions/{sid}/language-switch"),
}
NOT_CREATING = [call for call in SESSION_CALLS if (call[0], call[1]) not in CREATING]
WRITES = [call for call in SESSION_CALLS if (call[0], call[1]) in CREATING]


def _same_shape(body: Any, sid: str) -> Any:
    """``body`` with the session id and the deletion time (which differ between
    two calls whatever the session) replaced."""
    text = re.sub(r'"deleted_at":"[^"]+"', '"deleted_at":"T"', body)
    return text.replace(sid, "SID")


@pytest.mark.parametrize(("method", "path", "body", "query"), WRITES)
async def test_another_user_gets_404_and_changes_nothing(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    query: dict[str, Any] | None,
) -> None:
    entry_id = await _alice_session(client)
    before = await _snapshot(client)
    url = path.format(sid=OWNED, eid=entry_id)
    params = {k: v.format(sid=OWNED) for k, v in (query or {}).items()}
    r = await client.request(method, url, json=body, params=params, headers=auth("bob"))
    assert r.status_code == 404, r.text
    assert r.json()["code"] == "session_not_found"
    assert "Take it with food" not in r.text
    assert await _snapshot(client) == before


@pytest.mark.parametrize(("method", "path", "body", "query"), NOT_CREATING)
async def test_another_users_session_answers_as_a_never_used_id(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    query: dict[str, Any] | None,
) -> None:
    """Every read and delete route gives another user's session exactly the
    answer of an id never used (status and body), and changes nothing."""
    entry_id = await _alice_session(client)
    before = await _snapshot(client)
    answers = []
    for sid in (OWNED, "visit-nobody"):
        url = path.format(sid=sid, eid=entry_id)
        params = {k: v.format(sid=sid) for k, v in (query or {}).items()}
        r = await client.request(method, url, json=body, params=params, headers=auth("bob"))
        assert r.status_code < 500, r.text
        answers.append((r.status_code, _same_shape(r.text, sid)))
    assert answers[0] == answers[1]
    assert "Take it with food" not in answers[0][1]
    assert await _snapshot(client) == before


def test_every_session_route_is_covered() -> None:
    """A new route about a session must be added to SESSION_CALLS (read from the
    OpenAPI document: FastAPI includes routers lazily, so ``app.routes`` lists
    them only once requests have come)."""
    app = create_app(settings(Path("/nonexistent")))
    covered = {(m, re.sub(r"\{\w+\}", "{}", p)) for m, p, _, _ in SESSION_CALLS}
    seen = 0
    for path, operations in app.openapi()["paths"].items():
        if "{session_id}" in path:
            for method in operations:
                seen += 1
                key = (method.upper(), re.sub(r"\{\w+\}", "{}", path))
                assert key in covered, f"{key} has no isolation test"
    assert seen >= len(SESSION_CALLS) - 2  # all but DELETE /v1/me/memory and search


async def test_lists_and_exports_show_only_the_callers_data(client: httpx.AsyncClient) -> None:
    await _alice_session(client)
    await client.post(
        "/v1/sessions/visit-bob/entries",
        json={"role": "user", "content": "hi"},
        headers=auth("bob"),
    )
    bobs = (await client.get("/v1/sessions", headers=auth("bob"))).json()["sessions"]
    assert [s["session_id"] for s in bobs] == ["visit-bob"]
    export = await client.get("/v1/me/export", headers=auth("bob"))
    assert export.status_code == 200
    assert OWNED not in export.text and "Take it with food" not in export.text
    assert export.json()["user_id"] == "bob"


async def test_deleting_all_of_one_user_leaves_the_other(client: httpx.AsyncClient) -> None:
    await _alice_session(client)
    await client.post(
        "/v1/sessions/visit-bob/entries",
        json={"role": "user", "content": "hi"},
        headers=auth("bob"),
    )
    r = await client.delete("/v1/me/memory", params={"scope": "all"}, headers=auth("bob"))
    assert r.status_code == 200
    receipt = r.json()
    assert receipt["user_id"] == "bob" and receipt["scope"] == "all"
    assert receipt["counts"]["entries"] == 1
    assert (await client.get("/v1/sessions", headers=auth("bob"))).json()["sessions"] == []
    alice = (await client.get(f"/v1/sessions/{OWNED}/history", headers=auth("alice"))).json()
    assert [e["content"] for e in alice] == ["Take it with food."]


async def test_searching_another_users_session_finds_nothing(client: httpx.AsyncClient) -> None:
    """A search naming another user's session is 200 with no hits, as for an
    id never used; the owner's search of it finds the turn."""
    await _alice_session(client)
    params = {"q": "food", "session_id": OWNED}
    r = await client.get("/v1/me/search", params=params, headers=auth("bob"))
    assert r.status_code == 200 and r.json() == {"hits": []}
    r = await client.get("/v1/me/search", params=params, headers=auth("alice"))
    assert [h["snippet"] for h in r.json()["hits"]] == ["Take it with food."]
