"""Spades table server: rules engine, persistence, real-time hub, HTTP and WebSocket API."""

from importlib.resources import files
from pathlib import Path


def shipped(name: str) -> Path:
    """A file or folder the server needs besides its code: `web`, `migrations` or
    `alembic.ini`. The wheel puts them inside the package (pyproject.toml); a source
    checkout, the editable install included, keeps them at the top of the repo.

    >>> (shipped("web") / "index.html").is_file(), shipped("alembic.ini").is_file()
    (True, True)
    """
    packaged = Path(str(files(__name__) / name))
    return packaged if packaged.exists() else Path(__file__).resolve().parent.parent / name
