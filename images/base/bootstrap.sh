#!/usr/bin/env bash
# Make the local base image `pwb-base:bookworm` when no container registry is reachable:
# debootstrap a minimal Debian bookworm rootfs and `docker import` it.
# Idempotent: does nothing when the tag already exists (pass --force to rebuild).
set -euo pipefail

TAG="${PWB_BASE_TAG:-pwb-base:bookworm}"
MIRROR="${PWB_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
SUITE=bookworm

if [[ "${1:-}" != "--force" ]] && docker image inspect "$TAG" >/dev/null 2>&1; then
    echo "base image $TAG already present"
    exit 0
fi

# Prefer a registry when one answers quickly: pulling is faster than debootstrap.
if timeout 15 docker pull debian:bookworm-slim >/dev/null 2>&1; then
    docker tag debian:bookworm-slim "$TAG"
    echo "base image $TAG tagged from debian:bookworm-slim"
    exit 0
fi

command -v debootstrap >/dev/null || { echo "debootstrap is not installed" >&2; exit 1; }
ROOTFS="$(mktemp -d /tmp/pwb-rootfs.XXXXXX)"
trap 'rm -rf --one-file-system "$ROOTFS"' EXIT

echo "debootstrap --variant=minbase $SUITE from $MIRROR (a few minutes)"
debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 || {
    tail -n 40 "$ROOTFS.log" >&2
    exit 1
}
rm -f "$ROOTFS.log"

# Keep the image small and apt non-interactive; point apt at the same mirror.
rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
echo "deb $MIRROR $SUITE main" >"$ROOTFS/etc/apt/sources.list"
echo "deb $MIRROR $SUITE-updates main" >>"$ROOTFS/etc/apt/sources.list"

tar -C "$ROOTFS" -c . | docker import \
    --change 'ENV DEBIAN_FRONTEND=noninteractive' \
    --change 'ENV LANG=C.UTF-8' \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["/bin/bash"]' \
    - "$TAG"
echo "base image $TAG imported"
