# aftershock as a container: docker build -t aftershock . ; then, against a mounted repository,
#   docker run --rm -v "$PWD:/repo:ro" aftershock review --repo /repo --base origin/main --no-state
# (read-only mount: --no-state keeps nothing, the render cache goes to $XDG_CACHE_HOME in the container).
# The base image is pinned by digest: a published python:3.12-slim-bookworm manifest (taken from public
# references; no registry was reachable to re-check it when it was written). Bump it deliberately.
# Everything installs from wheels with the pinned lock; the final stage has no compiler.
ARG PYTHON_IMAGE=python:3.12-slim-bookworm@sha256:d50fb7611f86d04a3b0471b46d7557818d88983fc3136726336b2a4c657aa30b

FROM ${PYTHON_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml constraints.txt README.md ./
COPY src ./src
RUN python -m venv /opt/aftershock \
 && /opt/aftershock/bin/pip install --no-cache-dir --disable-pip-version-check -c constraints.txt '.[server]' \
 && /opt/aftershock/bin/pip install --no-cache-dir --disable-pip-version-check --no-deps \
      --ignore-requires-python -c constraints.txt pykustomize

FROM ${PYTHON_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends git \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --create-home --uid 10001 aftershock
COPY --from=build /opt/aftershock /opt/aftershock
ENV PATH=/opt/aftershock/bin:$PATH XDG_CACHE_HOME=/home/aftershock/.cache
USER aftershock
# a mounted repository belongs to another user: let git read it
RUN git config --global --add safe.directory '*'
WORKDIR /repo
ENTRYPOINT ["aftershock"]
CMD ["--help"]
