"""Dependencies reached by handlers as ``Annotated`` types: the service, the
authenticated (and rate-limited) user, and the app's metrics.

They are ``async def`` although they never await: FastAPI runs plain ``def``
dependencies in a worker thread, which costs more than the whole request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from ..service import UnifiedMemoryService
from .auth import Authenticator, RateLimiter
from .metrics import Metrics
from .server_settings import ServerSettings

__all__ = ["MetricsDep", "ServiceDep", "SettingsDep", "UserDep"]


async def _service(request: Request) -> UnifiedMemoryService:
    service: UnifiedMemoryService = request.app.state.service
    return service


async def _user(request: Request) -> str:
    """The caller's user id, after authentication and the rate limit."""
    auth: Authenticator = request.app.state.auth
    user = auth.user_from_header(request.headers.get("authorization"))
    limiter: RateLimiter = request.app.state.limiter
    limiter.check(user)
    return user


async def _metrics(request: Request) -> Metrics:
    metrics: Metrics = request.app.state.metrics
    return metrics


async def _settings(request: Request) -> ServerSettings:
    settings: ServerSettings = request.app.state.settings
    return settings


ServiceDep = Annotated[UnifiedMemoryService, Depends(_service)]
UserDep = Annotated[str, Depends(_user)]
MetricsDep = Annotated[Metrics, Depends(_metrics)]
SettingsDep = Annotated[ServerSettings, Depends(_settings)]
