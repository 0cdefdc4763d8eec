"""HTTP routes for the rule builder (docs/protocol.md): the catalogue of rules it renders,
and a check of rules being built that answers their summary or the reason they are
refused. Both read nothing stored and change nothing."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from server.engine import Rules
from server.engine.describe import RuleCatalog, catalog, rule_errors, summary
from server.protocol import RulesChecked
from server.rulelinks import rules_link

router = APIRouter(prefix="/api", tags=["rules"])
CATALOG = catalog()


class RulesToCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: dict[str, Any] = Field(default_factory=lambda: {"preset": "standard"})


def checked_rules(given: dict[str, Any]) -> Rules:
    """`given` as `Rules`, else 422 naming each field at fault."""
    try:
        return Rules.model_validate(given)
    except ValidationError as invalid:
        raise HTTPException(422, rule_errors(invalid)) from None


@router.get("/rules/catalog")
async def rule_catalog() -> RuleCatalog:
    """The presets and every rule the builder offers, grouped, in players' words."""
    return CATALOG


@router.post("/rules/check")
async def check_rules(body: RulesToCheck) -> RulesChecked:
    """The rules being built: every field, their summary and link, or 422 with the reason."""
    rules = checked_rules(body.rules)
    shown = rules.model_dump(mode="json")
    return RulesChecked(rules=shown, summary=summary(shown), link=rules_link(shown))
