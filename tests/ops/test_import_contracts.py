"""The layers are held by import-linter (`[tool.importlinter]` in pyproject.toml, run by
scripts/test): the contracts hold on the code, cover every top-level module, and break
on a copy of the code given a deliberate violation of each."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")
CONTRACTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"][
    "contracts"
]


def lint(top: Path) -> subprocess.CompletedProcess[str]:
    """`lint-imports` with the project's contracts over the `server` package in `top`."""
    shutil.copy(ROOT / "pyproject.toml", top / "pyproject.toml")
    return subprocess.run(
        [str(LINT), "--no-cache"],
        cwd=top,
        env={**os.environ, "PYTHONPATH": str(top)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def contract(name: str) -> dict[str, object]:
    return next(found for found in CONTRACTS if found["id"] == name)


def test_the_engine_contract_names_every_other_top_level_module() -> None:
    tops = {
        f"server.{path.stem}"
        for path in (ROOT / "server").iterdir()
        if (path.suffix == ".py" and path.stem != "__init__") or (path / "__init__.py").exists()
    }
    assert set(contract("engine")["forbidden_modules"]) == tops - {"server.engine"}


def test_every_module_of_the_clubs_is_in_a_layer() -> None:
    layered = {name.strip() for layer in contract("layers")["layers"] for name in layer.split("|")}
    clubs = {
        f"server.clubs.{path.stem}"
        for path in (ROOT / "server" / "clubs").glob("*.py")
        if path.stem != "__init__"
    }
    assert clubs <= layered


def test_the_contracts_hold_and_each_breaks_on_a_violation(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "server", tmp_path / "server", ignore=shutil.ignore_patterns("*.pyc"))
    kept = lint(tmp_path)
    assert kept.returncode == 0, kept.stdout
    assert "3 kept, 0 broken" in kept.stdout
    engine = tmp_path / "server" / "engine"
    (engine / "leak.py").write_text("from server.settings import Settings\n")
    (engine / "bots" / "peek.py").write_text("from server.engine.game import Game\n")
    store = (tmp_path / "server" / "store" / "records.py").read_text()
    (tmp_path / "server" / "store" / "records.py").write_text(
        store + "\nfrom server.realtime import room\n"
    )
    broken = lint(tmp_path)
    assert broken.returncode == 1
    assert "0 kept, 3 broken" in broken.stdout, broken.stdout
    assert "server.engine.leak -> server.settings" in broken.stdout
    assert "server.engine.bots.peek -> server.engine.game" in broken.stdout
    assert "server.store.records -> server.realtime.room" in broken.stdout
