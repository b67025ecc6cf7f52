"""Facts: ``/v1/me/facts`` (the caller's) and pinning an entry of a session.

A current fact is in every context of its owner: those pinned by hand and
those found in the conversation. The owner lists them (with their history),
confirms, corrects and deletes them. Facts are the caller's only: another
user's fact id deletes nothing (``deleted: false``, as for an id that never
existed) and is 404 ``fact_not_found`` to confirm or correct, as a missing
one; pinning an entry of another user's session is 404 like a missing session.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from ..models import Fact
from .deps import ServiceDep, UserDep
from .error_handlers import ERROR_RESPONSES
from .responses import ModelResponse
from .schemas import FactCorrection, FactDeleted, FactIn
from .sessions import ID_PATTERN, SessionId

__all__ = ["router"]

FactId = Annotated[str, Path(min_length=1, max_length=128, pattern=ID_PATTERN)]
EntryId = Annotated[str, Path(min_length=1, max_length=128, pattern=ID_PATTERN)]

router = APIRouter(prefix="/v1", tags=["facts"], responses=ERROR_RESPONSES)


@router.post(
    "/me/facts",
    operation_id="add_fact",
    status_code=201,
    response_model=Fact,
    summary="Pin a fact for the caller",
)
async def add_fact(body: FactIn, service: ServiceDep, user: UserDep) -> Response:
    """Store a fact (redacted when ``anonymize_phi`` is on) and return it as stored."""
    fact = await service.add_fact(body.text, body.kind, user_id=user, session_id=body.session_id)
    return ModelResponse(fact, 201)


@router.get(
    "/me/facts",
    operation_id="list_facts",
    response_model=list[Fact],
    summary="The caller's facts, oldest first",
)
async def list_facts(
    service: ServiceDep,
    user: UserDep,
    include_history: Annotated[
        bool, Query(description="also the facts a change or a correction closed")
    ] = False,
    kinds: Annotated[
        list[str] | None,
        Query(max_length=32, description="only these kinds (allergy, medication, ...)"),
    ] = None,
    reveal: Annotated[bool, Query(description="PHI tokens replaced by their values")] = False,
) -> Response:
    """The caller's current facts (with ``include_history``, the closed ones too;
    with ``reveal``, in the caller's own words, audited)."""
    return ModelResponse(
        await service.list_facts(
            user_id=user, include_history=include_history, kinds=kinds, reveal=reveal
        )
    )


@router.post(
    "/me/facts/{fact_id}/confirm",
    operation_id="confirm_fact",
    response_model=Fact,
    summary="Confirm one of the caller's current facts",
)
async def confirm_fact(fact_id: FactId, service: ServiceDep, user: UserDep) -> Response:
    """The fact, ``status: confirmed``. 404 for a fact the caller does not have;
    409 for one a later fact superseded."""
    return ModelResponse(await service.confirm_fact(fact_id, user_id=user))


@router.post(
    "/me/facts/{fact_id}/correct",
    operation_id="correct_fact",
    response_model=Fact,
    summary="Correct one of the caller's current facts",
)
async def correct_fact(
    fact_id: FactId, body: FactCorrection, service: ServiceDep, user: UserDep
) -> Response:
    """The old fact is closed (kept as history); returns the new one, ``status:
    corrected``. 404 for a fact the caller does not have; 409 for one a later
    fact superseded."""
    fact = await service.correct_fact(fact_id, body.value, user_id=user, attributes=body.attributes)
    return ModelResponse(fact)


@router.delete(
    "/me/facts/{fact_id}",
    operation_id="delete_fact",
    response_model=FactDeleted,
    summary="Delete one of the caller's facts",
)
async def delete_fact(fact_id: FactId, service: ServiceDep, user: UserDep) -> Response:
    """``deleted`` says whether the caller had it."""
    deleted = await service.delete_fact(fact_id, user_id=user)
    return ModelResponse(FactDeleted(fact_id=fact_id, deleted=deleted))


@router.post(
    "/sessions/{session_id}/entries/{entry_id}/pin",
    operation_id="pin_entry",
    response_model=Fact,
    summary="Pin an entry's content as a fact",
)
async def pin_entry(
    session_id: SessionId, entry_id: EntryId, service: ServiceDep, user: UserDep
) -> Response:
    """The entry's content becomes a fact of the caller (pinning twice returns the
    same fact). Another user's session is 404, as a missing one."""
    return ModelResponse(await service.pin_entry(session_id, entry_id, user_id=user))
