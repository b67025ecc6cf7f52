"""What every section of :class:`~unimem.settings.Settings` shares: frozen,
no unknown field, and the rule for a number of seconds."""

from __future__ import annotations

import math
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict

__all__ = ["PositiveSeconds", "Section"]


class Section(BaseModel):
    """One section of the settings: immutable, and a misspelt field is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def _positive_seconds(value: float) -> float:
    if not (value > 0 and math.isfinite(value)):
        raise ValueError("must be a positive number of seconds")
    return value


#: A finite number of seconds above zero (a timeout).
PositiveSeconds = Annotated[float, AfterValidator(_positive_seconds)]
