"""Health, readiness, metrics and the static web UI."""

from __future__ import annotations

from pathlib import Path

from server_support import asgi_client, auth, create_app, settings


async def test_health_and_readiness(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as client:
        health = await client.get("/healthz")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        assert health.json()["local_mode"] is False
        ready = await client.get("/readyz")
        assert ready.status_code == 200 and ready.json()["store"] == "ok"


async def test_metrics_use_route_templates_and_never_ids_or_content(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path)), headers=auth("alice")) as client:
        await client.post(
            "/v1/sessions/secret-session-42/entries",
            json={"role": "user", "content": "my private words"},
        )
        await client.get("/v1/sessions/secret-session-42/context")
        await client.post(
            "/v1/sessions/secret-session-42/llm-context",
            json={"current_query": "q", "max_tokens": 1},
        )
        text = (await client.get("/metrics")).text
    assert 'route="/v1/sessions/{session_id}/entries"' in text
    assert 'route="/v1/sessions/{session_id}/context"' in text
    assert (
        'unimem_store_operation_duration_seconds_count{operation="append_entry",outcome="ok"}'
        in text
    )
    assert "unimem_degradations_total{" in text
    for secret in ("secret-session-42", "private words", "alice"):
        assert secret not in text


async def test_web_ui_is_served_when_built(tmp_path: Path) -> None:
    web = tmp_path / "dist"
    (web / "assets").mkdir(parents=True)
    (web / "index.html").write_text("<!doctype html><title>unimem ui</title>")
    (web / "assets" / "app.js").write_text("console.log(1)")
    async with asgi_client(create_app(settings(tmp_path, web_dir=web))) as client:
        index = await client.get("/")
        assert index.status_code == 200 and "unimem ui" in index.text
        assert (await client.get("/assets/app.js")).text == "console.log(1)"
        # client-side routes fall back to the app; missing files stay 404
        assert "unimem ui" in (await client.get("/sessions/abc")).text
        assert (await client.get("/assets/missing.js")).status_code == 404
        # API routes win over the static mount
        assert (await client.get("/healthz")).json()["status"] == "ok"
        assert (await client.get("/v1/unknown")).status_code == 404


async def test_a_plain_page_says_when_the_ui_is_not_built(tmp_path: Path) -> None:
    async with asgi_client(create_app(settings(tmp_path))) as client:
        page = await client.get("/")
        assert page.status_code == 200
        assert "not built" in page.text and "/docs" in page.text
