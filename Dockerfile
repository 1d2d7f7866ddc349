# syntax=docker/dockerfile:1
# A static launchdir binary on a distroless base, running as non-root,
# with the database on a volume. Build: docker build -t launchdir .
# Run:   docker run -p 8080:8080 -v launchdir-data:/data \
#          -e LAUNCHDIR_BASE_URL=https://launchdir.example.com launchdir
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
RUN CGO_ENABLED=0 go build -trimpath \
      -ldflags "-s -w -X launchdir/app/kernel.version=${VERSION}" \
      -o /out/launchdir . \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/launchdir /usr/local/bin/launchdir
COPY --from=build --chown=65532:65532 /out/data /data
COPY LICENSE NOTICE /usr/share/doc/launchdir/
USER 65532:65532
VOLUME ["/data"]
# Set LAUNCHDIR_BASE_URL to the public origin (links, OAuth issuer, cookies);
# the default suits a local try-out on port 8080.
ENV LAUNCHDIR_ADDR=0.0.0.0:8080 \
    LAUNCHDIR_BASE_URL=http://localhost:8080 \
    LAUNCHDIR_DB=/data/launchdir.db
EXPOSE 8080
# No shell or curl in the image: the binary checks itself.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["/usr/local/bin/launchdir", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/launchdir"]
CMD ["serve"]
