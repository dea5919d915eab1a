#!/bin/sh
# Installs the prebuilt llama-agent binary for this machine from a GitHub release: downloads it,
# checks it against the release's SHA256SUMS, and puts it in ~/.local/bin (or --dir).
#
#   curl -fsSL https://github.com/llama-agent/llama-agent/releases/latest/download/install.sh | sh
#   curl -fsSL .../install.sh | sh -s -- --dir DIR --version vX.Y.Z
#   sh install.sh [--dir DIR] [--version vX.Y.Z]
#
# Environment: LLAMA_AGENT_RELEASE_URL, the directory the assets are downloaded from (default:
# the GitHub release of --version, or the latest one); LLAMA_AGENT_REPO (default
# llama-agent/llama-agent).
#
# Exit codes: 0 installed, 2 bad usage, 3 no prebuilt binary for this platform, 4 a download
# failed, 5 the checksum does not match (nothing is installed).
set -eu

repo=${LLAMA_AGENT_REPO:-llama-agent/llama-agent}
dir=""
version=""

say() { printf 'llama-agent install: %s\n' "$*" >&2; }
die() { code=$1; shift; say "$*"; exit "$code"; }
usage() {
  cat <<'USAGE'
Installs the prebuilt llama-agent binary for this machine from a GitHub release, checked against
the release's SHA256SUMS.

Usage: sh install.sh [--dir DIR] [--version vX.Y.Z]
       curl -fsSL <release>/install.sh | sh -s -- [--dir DIR] [--version vX.Y.Z]

  --dir DIR          where to put llama-agent (default: ~/.local/bin)
  --version vX.Y.Z   the release to install (default: the latest)

Environment: LLAMA_AGENT_RELEASE_URL (where the assets are), LLAMA_AGENT_REPO (owner/name).
Exit codes: 2 bad usage, 3 no binary for this platform, 4 download failed, 5 checksum mismatch.
USAGE
}

while [ $# -gt 0 ]; do
  case $1 in
    --dir) [ $# -ge 2 ] || die 2 "--dir needs a directory"; dir=$2; shift 2 ;;
    --version) [ $# -ge 2 ] || die 2 "--version needs a tag, e.g. v0.1.0"; version=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die 2 "unknown argument \"$1\" (see --help)" ;;
  esac
done

os=$(uname -s)
arch=$(uname -m)
case $os in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  MINGW*|MSYS*|CYGWIN*) os=windows ;;
  *) os="unknown:$os" ;;
esac
case $arch in
  x86_64|amd64) arch=x64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) arch="unknown:$arch" ;;
esac
case "$os-$arch" in
  linux-x64|linux-arm64|darwin-x64|darwin-arm64) asset="llama-agent-$os-$arch" ;;
  windows-x64) asset="llama-agent-windows-x64.exe" ;;
  *) die 3 "no prebuilt binary for $(uname -s) $(uname -m): there are binaries for linux-x64," \
    "linux-arm64, darwin-x64, darwin-arm64 and windows-x64; elsewhere, install from source" \
    "(git clone, then npm install; see docs/install.md)" ;;
esac

if [ -z "$dir" ]; then
  [ -n "${HOME:-}" ] || die 2 "HOME is not set: pass --dir DIR"
  dir="$HOME/.local/bin"
fi

if [ -n "${LLAMA_AGENT_RELEASE_URL:-}" ]; then
  base=$LLAMA_AGENT_RELEASE_URL
elif [ -n "$version" ]; then
  base="https://github.com/$repo/releases/download/$version"
else
  base="https://github.com/$repo/releases/latest/download"
fi

download() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    die 4 "neither curl nor wget is installed"
  fi
}

sha256() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1 | tr 'A-F' 'a-f'
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1 | tr 'A-F' 'a-f'
  else
    die 5 "cannot check the download: neither sha256sum nor shasum is installed"
  fi
}

work=$(mktemp -d)
partial=""
cleanup() { rm -rf "$work"; [ -z "$partial" ] || rm -f "$partial"; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

say "downloading $asset from $base"
download "$base/SHA256SUMS" "$work/SHA256SUMS" || die 4 "cannot download $base/SHA256SUMS"
download "$base/$asset" "$work/$asset" || die 4 "cannot download $base/$asset"

# Tolerates CRLF line ends, upper-case hex and the binary-mode marker (`*name`).
expected=$(tr -d '\r' < "$work/SHA256SUMS" | tr 'A-F' 'a-f' |
  awk -v name="$asset" '$2 == name || $2 == "*" name { print $1 }')
[ -n "$expected" ] || die 5 "SHA256SUMS has no line for $asset: not installing it"
actual=$(sha256 "$work/$asset")
if [ "$actual" != "$expected" ]; then
  die 5 "checksum mismatch for $asset (expected $expected, got $actual): not installing it"
fi

mkdir -p "$dir" || die 2 "cannot create $dir"
target="$dir/llama-agent"
[ "$os" = windows ] && target="$target.exe"
# Moved into place in one step, so a running llama-agent is never half overwritten.
partial="$dir/.llama-agent.download.$$"
cp "$work/$asset" "$partial" || die 2 "cannot write to $dir"
chmod 755 "$partial"
mv -f "$partial" "$target" || die 2 "cannot replace $target"
partial=""
say "installed $target"
case ":${PATH:-}:" in
  *":$dir:"*) ;;
  *) say "$dir is not on your PATH: add it, e.g. export PATH=\"$dir:\$PATH\"" ;;
esac
