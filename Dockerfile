# One image for every slidelab service: worker, orchestrator, migration.
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY puzzles puzzles
COPY workers workers
COPY orchestrator orchestrator
COPY migrations migrations
COPY data data
# Editable: the code stays in /app beside migrations/ and data/, which the commands read from there.
RUN pip install --no-cache-dir -e .
# Compiled kernels (and later pattern databases) live in ~/.cache/slidelab: a shared volume there
# lets every container reuse them; the folder is keyed by a digest of the sources, so never stale.
ENTRYPOINT ["orchestrate"]
CMD ["--help"]
