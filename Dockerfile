# One image for every slidelab service: worker, orchestrator, migration. It runs as the user slidelab.
FROM python:3.11-slim
RUN useradd --create-home --uid 10001 slidelab \
    && mkdir -p /home/slidelab/.cache/slidelab \
    && chown -R slidelab:slidelab /home/slidelab/.cache
WORKDIR /app
# The dependencies first, in a layer of their own, installed for empty packages: an edit of the code
# below does not reinstall them.
COPY pyproject.toml ./
RUN mkdir puzzles workers orchestrator slidelab \
    && touch README.md puzzles/__init__.py workers/__init__.py orchestrator/__init__.py slidelab/__init__.py \
    && pip install --no-cache-dir -e .
# Editable: the code stays in /app beside migrations/ and data/, which the commands read from there.
COPY README.md ./
COPY puzzles puzzles
COPY workers workers
COPY orchestrator orchestrator
COPY slidelab slidelab
COPY migrations migrations
COPY data data
# Compiled kernels (and later pattern databases) live in ~/.cache/slidelab: a shared volume there
# lets every container reuse them; the folder is keyed by a digest of the sources, so never stale.
USER 10001
ENTRYPOINT ["orchestrate"]
CMD ["--help"]
