"""Listing with history, confirming and correcting facts over HTTP, through
``MemoryClient``, as MCP tools and from the CLI: the same behaviour as the
service, and another user's fact reported exactly as a missing one."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from mcp.client import Client

from server_support import asgi_client, auth, create_app, running_server, settings, token
from unimem import Fact, FactNotFoundError, UnifiedMemoryService
from unimem.cli import main
from unimem.client import MemoryClient
from unimem.ids import new_id
from unimem.mcp_server import build_mcp_server


def medication(uid: str, dose: str = "10 mg") -> Fact:
    now = datetime.now(UTC)
    return Fact(
        id=new_id(),
        user_id=uid,
        kind="medication",
        key="medication:lisinopril",
        value="lisinopril",
        attributes={"dose": dose},
        text=f"Takes lisinopril {dose} daily",
        session_id="s1",
        source_entry_ids=["e1"],
        created_at=now,
        valid_from=now,
    )


async def plant(service: UnifiedMemoryService, fact: Fact) -> Fact:
    await service.update_settings({"anonymize_phi": False}, user_id=fact.user_id)
    [stored] = await service.store.apply_fact_changes(fact.user_id, add=[fact])
    return stored


async def test_fact_routes_correct_confirm_and_keep_history(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as http:
        service: UnifiedMemoryService = app.state.service
        med = await plant(service, medication("alice"))
        corrected = await http.post(
            f"/v1/me/facts/{med.id}/correct",
            json={"value": "lisinopril", "attributes": {"dose": "20 mg"}},
            headers=auth("alice"),
        )
        assert corrected.status_code == 200, corrected.text
        new = corrected.json()
        assert (new["status"], new["text"]) == ("corrected", "Takes lisinopril 20 mg daily")
        current = (await http.get("/v1/me/facts", headers=auth("alice"))).json()
        assert [f["id"] for f in current] == [new["id"]]
        history = await http.get(
            "/v1/me/facts",
            params={"include_history": "true", "kinds": ["medication"]},
            headers=auth("alice"),
        )
        assert [f["id"] for f in history.json()] == [med.id, new["id"]]
        assert history.json()[0]["valid_to"] is not None
        other = await http.get("/v1/me/facts", params={"kinds": ["allergy"]}, headers=auth("alice"))
        assert other.json() == []
        confirmed = await http.post(f"/v1/me/facts/{new['id']}/confirm", headers=auth("alice"))
        assert confirmed.json()["status"] == "confirmed"
        stale = await http.post(f"/v1/me/facts/{med.id}/confirm", headers=auth("alice"))
        assert stale.status_code == 409
        # in alice's context: the current value only
        await http.post(
            "/v1/sessions/s1/entries", json={"role": "user", "content": "hi"}, headers=auth("alice")
        )
        llm = await http.post(
            "/v1/sessions/s1/llm-context", json={"current_query": "dose?"}, headers=auth("alice")
        )
        said = json.dumps(llm.json()["messages"])
        assert "lisinopril 20 mg" in said and "10 mg" not in said


async def test_another_users_fact_is_404_like_a_missing_one(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app) as http:
        theirs = await plant(app.state.service, medication("alice"))
        answers = []
        for fact_id in (theirs.id, "no-such-fact"):
            for action, body in (("confirm", None), ("correct", {"value": "x"})):
                answer = await http.post(
                    f"/v1/me/facts/{fact_id}/{action}", json=body, headers=auth("bob")
                )
                assert answer.status_code == 404
                answers.append(
                    answer.json() | {"message": answer.json()["message"].replace(fact_id, "ID")}
                )
        assert all(a == answers[0] for a in answers[::2]) and answers[0]["code"] == "fact_not_found"
        assert answers[1] == answers[3]
        [kept] = (await http.get("/v1/me/facts", headers=auth("alice"))).json()
        assert kept["status"] == "reported"


async def test_bad_corrections_are_422_naming_the_field(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with asgi_client(app, headers=auth("alice")) as http:
        med = await plant(app.state.service, medication("alice"))
        url = f"/v1/me/facts/{med.id}/correct"
        empty = await http.post(url, json={"value": " "})
        assert empty.status_code == 422 and empty.json()["field"] == "value"
        extra = await http.post(url, json={"value": "x", "colour": "red"})
        assert extra.status_code == 422
        bad = await http.post(url, json={"value": "x", "attributes": {"dose": 5}})
        assert bad.status_code == 422
        kinds = await http.get("/v1/me/facts", params={"kinds": ["k"] * 33})
        assert kinds.status_code == 422


async def _scenario(memory: Any, service: UnifiedMemoryService, user: str) -> dict[str, Any]:
    med = await plant(service, medication(user))
    new = await memory.correct_fact(med.id, "lisinopril", attributes={"dose": "5 mg"}, user_id=user)
    confirmed = await memory.confirm_fact(new.id, user_id=user)
    history = await memory.list_facts(user_id=user, include_history=True, kinds=["medication"])
    current = await memory.list_facts(user_id=user)
    try:
        await memory.confirm_fact("no-such-fact", user_id=user)
        missing = None
    except FactNotFoundError as exc:
        missing = exc.message
    return {
        "new": (new.status, new.text, new.attributes),
        "confirmed": confirmed.status,
        "history": [(f.text, f.current) for f in history],
        "current": [f.text for f in current],
        "types": {type(f) for f in [new, confirmed, *history]},
        "missing": missing,
    }


async def test_client_matches_the_service(tmp_path: Path) -> None:
    app = create_app(settings(tmp_path))
    async with running_server(app) as base, MemoryClient(base, token=token("local")) as remote:
        over_http = await _scenario(remote, app.state.service, "local")
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'in.db'}") as local:
        in_process = await _scenario(local, local, "local")
    assert over_http == in_process
    assert over_http["types"] == {Fact}
    assert over_http["history"] == [
        ("Takes lisinopril 10 mg daily", False),
        ("Takes lisinopril 5 mg daily", True),
    ]


def _payload(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def test_mcp_tools_confirm_and_correct(tmp_path: Path) -> None:
    async with UnifiedMemoryService.from_url(f"sqlite:///{tmp_path / 'mcp.db'}") as service:
        med = await plant(service, medication("carol"))
        async with Client(build_mcp_server(service, "carol")) as client:
            fixed = _payload(
                await client.call_tool(
                    "correct_fact",
                    {"fact_id": med.id, "value": "lisinopril", "attributes": {"dose": "40 mg"}},
                )
            )
            assert fixed["status"] == "corrected" and fixed["attributes"] == {"dose": "40 mg"}
            ok = _payload(await client.call_tool("confirm_fact", {"fact_id": fixed["id"]}))
            assert ok["status"] == "confirmed"
            listed = _payload(await client.call_tool("list_facts", {"include_history": True}))
            assert [f["id"] for f in listed["facts"]] == [med.id, fixed["id"]]
            missing = await client.call_tool("confirm_fact", {"fact_id": "nope"})
            assert missing.is_error and _payload(missing)["code"] == "fact_not_found"
        assert await service.list_facts(user_id="dave") == []


def test_cli_lists_corrects_confirms_and_deletes(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"

    async def planted() -> Fact:
        async with UnifiedMemoryService.from_url(url) as service:
            return await plant(service, medication("erin"))

    med = asyncio.run(planted())
    runner = CliRunner()
    base = ["--user", "erin", "--database-url", url]
    fixed = runner.invoke(
        main, ["facts", "correct", *base, med.id, "lisinopril", "--attr", "dose=20 mg"]
    )
    assert fixed.exit_code == 0, fixed.output
    assert "Takes lisinopril 20 mg daily  corrected" in fixed.output
    new_id_ = fixed.output.split()[0]
    listed = runner.invoke(main, ["facts", "list", *base, "--history", "--json"])
    assert [f["id"] for f in json.loads(listed.output)] == [med.id, new_id_]
    confirmed = runner.invoke(main, ["facts", "confirm", *base, new_id_])
    assert "confirmed" in confirmed.output
    gone = runner.invoke(main, ["facts", "delete", *base, new_id_])
    assert gone.exit_code == 0
    again = runner.invoke(main, ["facts", "delete", *base, new_id_])
    assert again.exit_code == 1 and "no fact" in again.output
    bad = runner.invoke(main, ["facts", "correct", *base, med.id, "x", "--attr", "dose"])
    assert bad.exit_code == 2 and "name=value" in bad.output
    missing = runner.invoke(main, ["facts", "confirm", *base, "no-such-fact"])
    assert missing.exit_code == 1 and "no fact 'no-such-fact'" in missing.output
