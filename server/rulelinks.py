"""The lobby's address that opens the create form with a table's rules filled in ("play
these rules again"): the rules as a preset plus changes (`describe.compact`), as JSON in
the `rules` query parameter.

>>> from server.engine import Rules
>>> rules_link(Rules.preset("standard", bags=False).model_dump())
'/?rules=%7B%22preset%22%3A%22standard%22%2C%22bags%22%3Afalse%7D'
"""

from __future__ import annotations

import json
from functools import lru_cache
from urllib.parse import quote

from server.engine.describe import Frozen, RulesData, compact, frozen, thawed


def rules_link(rules: RulesData) -> str:
    """`/?rules=<the rules as compact JSON, URL-encoded>`."""
    return _link(frozen(rules))


@lru_cache(maxsize=1024)
def _link(key: Frozen) -> str:
    return "/?rules=" + quote(json.dumps(compact(thawed(key)), separators=(",", ":")), safe="")
