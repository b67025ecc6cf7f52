"""JSON responses of the library's models, written by pydantic.

Handlers return the models the service built; :class:`ModelResponse` writes
them with pydantic's own serializer (``model_dump_json`` for one model, a
``TypeAdapter`` for a list), so the bytes on the wire are what the models'
``model_dump_json()`` gives, and FastAPI need not validate the service's
results a second time. Each route still declares its ``response_model`` for
the OpenAPI schema.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, SerializeAsAny, TypeAdapter
from starlette.responses import Response

__all__ = ["ModelResponse"]

# Each item written as its own class (not as a bare BaseModel).
_MODEL_LIST: TypeAdapter[list[SerializeAsAny[BaseModel]]] = TypeAdapter(
    list[SerializeAsAny[BaseModel]]
)


class ModelResponse(Response):
    """An ``application/json`` response of a pydantic model or a list of models."""

    media_type = "application/json"

    def __init__(self, content: BaseModel | Sequence[BaseModel], status_code: int = 200) -> None:
        super().__init__(content, status_code)

    def render(self, content: Any) -> bytes:
        """The JSON pydantic writes of ``content``."""
        if isinstance(content, BaseModel):
            return content.model_dump_json().encode()
        return _MODEL_LIST.dump_json(list(content))
