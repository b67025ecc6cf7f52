"""The unimem HTTP + WebSocket server (``unimem serve``).

``create_app(settings=None)`` builds the FastAPI app; settings come from
``UNIMEM_*`` environment variables when not given (see :mod:`.settings`).
"""

from .app import create_app
from .auth import issue_token
from .settings import ServerSettings

__all__ = ["ServerSettings", "create_app", "issue_token"]
