# syntax=docker/dockerfile:1
# Spades table server. Two stages: `wheels` builds a wheel of every dependency and one of
# the project (web/, migrations/ and alembic.ini ship inside the package, see pyproject.toml);
# `runtime` only installs them, so it holds no source tree, only the installed package.
#
#   docker build -t spades .
#   docker run -p 8000:8000 -v spades-data:/app/data spades      # SQLite in a volume
#   docker compose up                                            # PostgreSQL + Redis

ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS wheels
WORKDIR /build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1
# pyproject.toml alone first: the dependency layer is rebuilt when dependencies change, not code.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" > requirements.txt \
 && pip wheel --no-cache-dir --wheel-dir /wheels -r requirements.txt
COPY README.md LICENSE alembic.ini ./
COPY migrations ./migrations
COPY web ./web
COPY server ./server
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels . \
 && sha256sum /wheels/*.whl > /wheels/SHA256SUMS

FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DATABASE_URL=sqlite+aiosqlite:////app/data/spades.db \
    SPADES_LOG_JSON=true
# /app is the server's home and working folder; it holds only the SQLite data volume.
WORKDIR /app
# The wheels' checksums come in as a file: a new wheel changes it, so the install below is
# never a layer cached from an older build (podman's builder leaves a bind mount's content
# out of a RUN's cache key, and reused a stale install), and the install checks its wheels.
COPY --from=wheels /wheels/SHA256SUMS /tmp/wheels.sha256
RUN --mount=type=bind,from=wheels,source=/wheels,target=/wheels \
    sha256sum --check --quiet /tmp/wheels.sha256 \
 && pip install --no-cache-dir --no-index --find-links=/wheels /wheels/spades_table-*.whl \
 && rm /tmp/wheels.sha256 \
 && groupadd --system --gid 10001 spades \
 && useradd --system --uid 10001 --gid spades --home-dir /app --no-create-home spades \
 && mkdir /app/data \
 && chown spades:spades /app/data
USER 10001:10001
VOLUME ["/app/data"]
EXPOSE 8000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
# `spades serve` is uvicorn (websockets-sansio) with JSON logs from the first line. Exec form,
# so it is PID 1 and gets `docker stop`'s SIGTERM itself: sockets close with 1012, exit 0.
CMD ["python", "-m", "server.cli", "serve", "--host", "0.0.0.0", "--port", "8000"]
