"""The Dockerfile and docker-compose.yml say what they should, and only what is true.

No Docker daemon runs here, so these check the files themselves: hadolint on the
Dockerfile, the compose file parsed with PyYAML and compared with `Settings` and the repo.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from pydantic import AliasChoices

from server.cli import WS_PROTOCOL, build_parser
from server.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "docker-compose.yml"
HADOLINT = Path(sys.executable).parent / "hadolint"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    pairs = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            instruction, _, arguments = line.partition(" ")
            pairs.append((instruction.upper(), arguments.strip()))
    return pairs


def settings_env_names() -> set[str]:
    """Every environment variable name `Settings` reads (upper case; matching ignores case)."""
    prefix = Settings.model_config.get("env_prefix", "")
    names = set()
    for field_name, field in Settings.model_fields.items():
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names.update(str(choice).upper() for choice in alias.choices)
        elif isinstance(alias, str):
            names.add(alias.upper())
        else:
            names.add(f"{prefix}{field_name}".upper())
    return names


def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def with_defaults(value: str) -> str:
    """Compose's ${VAR:-default} interpolation, taking the defaults."""
    return re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", str(value))


def test_hadolint_passes_the_dockerfile():
    if not HADOLINT.exists():
        pytest.fail(f"hadolint is not installed at {HADOLINT}: pip install -e '.[test]'")
    result = subprocess.run(
        [str(HADOLINT), "--no-color", str(DOCKERFILE)], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_dockerfile_is_multi_stage_and_runs_the_app_as_non_root():
    instructions = dockerfile_instructions()
    stages = [arguments for name, arguments in instructions if name == "FROM"]
    assert len(stages) >= 2, "wheels are built in one stage, installed in a slim one"
    build_args = dict(arguments.split("=", 1) for name, arguments in instructions if name == "ARG")
    images = [re.sub(r"\$\{(\w+)\}", lambda m: build_args[m[1]], s.split()[0]) for s in stages]
    assert all(image.startswith("python:3.11-slim") for image in images), images
    [user] = [arguments for name, arguments in instructions if name == "USER"]
    assert user.split(":")[0] not in ("root", "0")
    assert [arguments for name, arguments in instructions if name == "EXPOSE"] == ["8000"]
    [healthcheck] = [arguments for name, arguments in instructions if name == "HEALTHCHECK"]
    assert "/healthz" in healthcheck
    [cmd] = [arguments for name, arguments in instructions if name == "CMD"]
    command = yaml.safe_load(cmd)  # exec form is a JSON (so YAML) list
    assert command[:3] == ["python", "-m", "server.cli"]
    args = build_parser().parse_args(command[3:])
    assert (args.command, args.host, args.port, args.reload) == ("serve", "0.0.0.0", 8000, False)
    assert WS_PROTOCOL == "websockets-sansio"


def test_dockerfile_copies_sources_that_exist_and_are_not_dockerignored():
    ignored = {
        line.strip().rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    copies = [
        arguments
        for name, arguments in dockerfile_instructions()
        if name == "COPY" and "--from=" not in arguments
    ]
    sources = []
    for arguments in copies:
        words = [word for word in shlex.split(arguments) if not word.startswith("--")]
        sources += words[:-1]
    assert {"migrations", "alembic.ini", "web", "server", "pyproject.toml"} <= set(sources)
    for source in sources:
        assert (ROOT / source).exists(), f"COPY {source}: not in the repository"
        assert source not in ignored, f"COPY {source}: excluded by .dockerignore"


def test_compose_runs_app_postgres_and_redis_with_healthchecks_and_volumes():
    spec = compose()
    services = spec["services"]
    assert {"app", "postgres", "redis"} <= set(services)
    for name in ("app", "postgres", "redis"):
        assert services[name]["healthcheck"]["test"], name
    declared = set(spec["volumes"])
    assert declared == {"postgres-data", "redis-data"}
    mounted = {
        volume.split(":")[0]
        for service in services.values()
        for volume in service.get("volumes", [])
    }
    assert declared <= mounted, "every named volume is used"
    assert "postgres-data:/var/lib/postgresql/data" in services["postgres"]["volumes"]


def test_compose_app_starts_after_healthy_services_and_applied_migrations():
    services = compose()["services"]
    depends = services["app"]["depends_on"]
    assert depends["postgres"]["condition"] == "service_healthy"
    assert depends["redis"]["condition"] == "service_healthy"
    assert depends["migrate"]["condition"] == "service_completed_successfully"
    migrate = services["migrate"]
    assert migrate["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert migrate["command"][:3] == ["python", "-m", "server.cli"]
    assert build_parser().parse_args(migrate["command"][3:]).command == "migrate"
    assert migrate["environment"]["DATABASE_URL"] == services["app"]["environment"]["DATABASE_URL"]


def test_compose_gives_the_app_only_settings_that_settings_reads(monkeypatch):
    services = compose()["services"]
    environment = services["app"]["environment"]
    known = settings_env_names()
    for name in ("app", "migrate"):
        unknown = {key for key in services[name]["environment"] if key.upper() not in known}
        assert not unknown, f"{name}: Settings does not read {sorted(unknown)}"
    assert with_defaults(environment["DATABASE_URL"]).startswith("postgresql+asyncpg://")
    assert environment["REDIS_URL"].startswith("redis://")

    for name, value in environment.items():
        monkeypatch.setenv(name, with_defaults(value))
    settings = Settings()
    assert settings.database_url == "postgresql+asyncpg://spades:spades@postgres:5432/spades"
    assert settings.redis_url == "redis://redis:6379/0"
    assert settings.migrate_on_start is False
    assert settings.log_json is True
    assert settings.grace_seconds == 60


def test_settings_env_names_follow_the_prefix_and_the_plain_url_names():
    names = settings_env_names()
    assert {"DATABASE_URL", "REDIS_URL", "SPADES_PORT", "SPADES_LOG_JSON"} <= names


def test_operations_doc_documents_every_setting():
    doc = (ROOT / "docs" / "operations.md").read_text()
    prefix = Settings.model_config.get("env_prefix", "")
    for field_name, field in Settings.model_fields.items():
        alias = field.validation_alias
        name = alias.choices[0] if isinstance(alias, AliasChoices) else f"{prefix}{field_name}"
        assert f"| `{str(name).upper()}` |" in doc, f"docs/operations.md lacks {name}"
