#!/usr/bin/env bash
# Installs offlux for the GitHub Action (action.yml): the released binary for the runner's OS and
# architecture, checked against its published SHA-256; where there is none (no release yet, an
# unusual runner, no network to the release host), `cargo install --locked` from the action's own
# checkout. The binary's directory is added to $GITHUB_PATH.
#
# Environment: OFFLUX_VERSION (`latest` or a version such as `0.2.0`), OFFLUX_ACTION_REPOSITORY
# (owner/name the action runs from), OFFLUX_ACTION_PATH (its checkout), RUNNER_OS, RUNNER_ARCH,
# RUNNER_TEMP.
set -euo pipefail

version=${OFFLUX_VERSION:-latest}
dest="${RUNNER_TEMP:-/tmp}/offlux"
mkdir -p "$dest/bin"

target() {
  case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) echo x86_64-unknown-linux-musl ;;
    Linux/ARM64) echo aarch64-unknown-linux-musl ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
    Windows/X64) echo x86_64-pc-windows-msvc ;;
    *) return 1 ;;
  esac
}

from_release() {
  local triple repo base archive
  triple=$(target) || return 1
  repo=${OFFLUX_ACTION_REPOSITORY:-}
  [ -n "$repo" ] || return 1
  if [ "$version" = latest ]; then
    base="https://github.com/$repo/releases/latest/download"
  else
    base="https://github.com/$repo/releases/download/v${version#v}"
  fi
  archive="offlux-$triple.tar.gz"
  curl --fail --silent --show-error --location --proto '=https' -o "$dest/$archive" "$base/$archive" || return 1
  curl --fail --silent --show-error --location --proto '=https' -o "$dest/$archive.sha256" "$base/$archive.sha256" || return 1
  (cd "$dest" && sha256sum --check --status "$archive.sha256" 2>/dev/null ||
    shasum -a 256 --check --status "$archive.sha256") || return 1
  tar -xzf "$dest/$archive" -C "$dest/bin"
}

if from_release; then
  echo "offlux: installed the released binary ($version)"
else
  echo "offlux: no released binary for ${RUNNER_OS:-?}/${RUNNER_ARCH:-?} ($version); building with cargo"
  cargo install --locked --path "${OFFLUX_ACTION_PATH:?}" --root "$dest"
fi
if [ -n "${GITHUB_PATH:-}" ]; then echo "$dest/bin" >>"$GITHUB_PATH"; fi
"$dest/bin/offlux" --version
