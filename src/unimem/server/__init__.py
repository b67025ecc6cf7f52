"""The unimem HTTP + WebSocket server (``unimem serve``).

``create_app(settings=None)`` builds the FastAPI app from a
:class:`unimem.settings.Settings` (or the flat :class:`ServerSettings`); when
none is given it reads the ``UNIMEM_*`` variables (``Settings.from_env()``).
"""

from .app import create_app
from .auth import issue_token
from .server_settings import ServerSettings

__all__ = ["ServerSettings", "create_app", "issue_token"]
