# One image for every slidelab service: worker, orchestrator, migration. It runs as the user slidelab.
# The wheel is built in a stage of its own; the image installs it as any user would, with the PostgreSQL driver.
FROM python:3.11-slim AS wheel
WORKDIR /src
COPY pyproject.toml README.md ./
COPY puzzles puzzles
COPY workers workers
COPY orchestrator orchestrator
COPY slidelab slidelab
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 slidelab \
    && mkdir -p /home/slidelab/.cache/slidelab \
    && chown -R slidelab:slidelab /home/slidelab/.cache
# The dependencies first, in a layer of their own, installed for a package of empty modules that is then
# uninstalled: an edit of the code below does not reinstall them.
WORKDIR /tmp/dependencies
COPY pyproject.toml ./
RUN mkdir puzzles workers orchestrator slidelab \
    && touch README.md puzzles/__init__.py workers/__init__.py orchestrator/__init__.py slidelab/__init__.py \
    && pip install --no-cache-dir "/tmp/dependencies[postgresql]" \
    && pip uninstall --yes slidelab \
    && rm -rf /tmp/dependencies
WORKDIR /home/slidelab
# The code, migrations and shipped boards: the wheel, whose package data they are.
COPY --from=wheel /wheels /tmp/wheels
RUN pip install --no-cache-dir --no-deps /tmp/wheels/*.whl && rm -rf /tmp/wheels
# Compiled kernels (and later pattern databases) live in ~/.cache/slidelab: a shared volume there
# lets every container reuse them; the folder is keyed by a digest of the sources, so never stale.
USER 10001
ENTRYPOINT ["orchestrate"]
CMD ["--help"]
