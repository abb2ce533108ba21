# stubserver in a container: built in the official Swift image, run from a small Debian with the
# static binary (no Swift runtime), libssl and CA certificates for https upstreams, as a user
# that is not root.
#
#   docker build -t stubserver .
#   docker run --rm -p 8080:8080 -v "$PWD/stubs:/stubs:ro" stubserver
#
# It listens on 0.0.0.0, so the admin API needs a token: the server prints one at start
# (docker logs), or give your own: docker run ... stubserver --dir /stubs --host 0.0.0.0 --admin-token T
# Build and run images share Debian 12, so the C library the binary was linked against is there.
FROM swift:6.3-bookworm AS build
WORKDIR /src
COPY . .
RUN swift build -c release --product stubserver --static-swift-stdlib \
    && cp "$(swift build -c release --product stubserver --static-swift-stdlib --show-bin-path)/stubserver" /stubserver \
    && strip /stubserver

FROM debian:bookworm-slim
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates libssl3 curl \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin stubserver
COPY --from=build /stubserver /usr/local/bin/stubserver
COPY stubs /stubs
USER stubserver
EXPOSE 8080
# The health route needs no token, and the Host 127.0.0.1 is one the admin API answers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:8080/__admin/health || exit 1
ENTRYPOINT ["stubserver"]
CMD ["--dir", "/stubs", "--host", "0.0.0.0", "--port", "8080"]
