# Shared by scripts/demo and scripts/test: find Swift, install missing
# Debian packages, and build. Sourced, not run.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

# Swift is not a Debian package: it lives in /opt/swift on these machines.
if ! command -v swift >/dev/null 2>&1; then
    for candidate in /opt/swift/usr/bin /usr/share/swift/usr/bin; do
        if [ -x "$candidate/swift" ]; then PATH="$candidate:$PATH"; export PATH; break; fi
    done
fi
if ! command -v swift >/dev/null 2>&1; then
    echo "error: no Swift toolchain found (need Swift 6.1 or newer on PATH, e.g. /opt/swift/usr/bin)" >&2
    exit 1
fi

# ensure_packages PKG...: installs the Debian packages that are missing.
ensure_packages() {
    local missing=()
    for package in "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
            missing+=("$package")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "==> installing Debian packages: ${missing[*]}"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
            echo "error: need root (or sudo) to install: ${missing[*]}" >&2
            exit 1
        fi
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# What building needs: libgps (the gpsd source links it) and pkg-config to find
# it; SQLite for the delivery outbox (PetSpotOutbox links the system library through CSQLite);
# TurboJPEG and libheif for cleaning report photos (PetSpotPhotoCleaning).
build_packages=(pkg-config libgps-dev libsqlite3-dev libturbojpeg0-dev libheif-dev)
