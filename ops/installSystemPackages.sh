#!/usr/bin/env bash
# The Debian packages the tests use beyond npm's: Chromium (the browser flows, test/e2e/), slapd
# and openssl (a real OpenLDAP server with its own certificates, test/peers/slapd.ts) and
# ldap-utils (to look into that directory by hand). The one place that installs them: `npm test`
# runs this as root when a selected test file needs one that is missing, and .ci/run runs it
# before the tests.
#
#   ops/installSystemPackages.sh            install what is missing (root, Debian: apt-get)
#   ops/installSystemPackages.sh --missing  print the missing packages, one a line; install nothing
#
# Without root it installs nothing: it names the one command to run and exits 1.
set -uo pipefail

PACKAGES=(chromium slapd ldap-utils openssl)

# present PACKAGE: whether the program the tests run from PACKAGE is on this machine. The tests
# call /usr/bin/chromium and /usr/sbin/slapd by path; /usr/sbin is often not on a user's PATH.
present() {
  local program
  case $1 in
    chromium) program=chromium ;;
    slapd) program=slapd ;;
    ldap-utils) program=ldapsearch ;;
    openssl) program=openssl ;;
    *) return 1 ;;
  esac
  # bash's `command -v` also names a file it found but cannot execute
  local found
  found=$(PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin command -v "$program") && [[ -f $found && -x $found ]]
}

missing_packages() {
  local package
  for package in "${PACKAGES[@]}"; do
    present "$package" || echo "$package"
  done
}

# Package scripts must not start services: slapd would take port 389; the tests start their own.
stop_default_slapd() {
  local pidfile
  for pidfile in /run/slapd/slapd.pid /var/run/slapd/slapd.pid; do
    if [[ -s $pidfile ]] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
      echo "stopping the slapd service the package started (pid $(cat "$pidfile"))"
      service slapd stop >/dev/null 2>&1 || kill "$(cat "$pidfile")"
      return
    fi
  done
}

install_packages() {
  local missing=("$@")
  local policy=/usr/sbin/policy-rc.d created_policy=0 rc=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && created_policy=1
  fi
  echo "installing ${missing[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get update -qq </dev/null; then
    echo "installSystemPackages: apt-get update failed" >&2
    rc=1
  elif ! apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null; then
    echo "installSystemPackages: apt-get install ${missing[*]} failed" >&2
    rc=1
  fi
  (( created_policy )) && rm -f "$policy"
  stop_default_slapd
  return "$rc"
}

main() {
  local here=.
  [[ ${BASH_SOURCE[0]} == */* ]] && here=${BASH_SOURCE[0]%/*}
  here=$(cd "$here" && pwd)
  local missing
  mapfile -t missing < <(missing_packages)
  if [[ ${1:-} == --missing ]]; then
    (( ${#missing[@]} == 0 )) || printf '%s\n' "${missing[@]}"
    return 0
  fi
  if [[ -n ${1:-} ]]; then
    echo "usage: $0 [--missing]" >&2
    return 2
  fi
  if (( ${#missing[@]} == 0 )); then
    echo "system packages present: ${PACKAGES[*]}"
    return 0
  fi
  if ! command -v apt-get >/dev/null; then
    echo "installSystemPackages: missing ${missing[*]}, and this is not a Debian machine (no apt-get): install them with its package manager" >&2
    return 1
  fi
  if (( EUID != 0 )); then
    echo "installSystemPackages: missing ${missing[*]}; to install them run, as root:" >&2
    echo "  sudo $here/installSystemPackages.sh" >&2
    return 1
  fi
  install_packages "${missing[@]}" || return 1
  mapfile -t missing < <(missing_packages)
  if (( ${#missing[@]} > 0 )); then
    echo "installSystemPackages: still missing after apt-get install: ${missing[*]}" >&2
    return 1
  fi
  echo "system packages installed: ${PACKAGES[*]}"
}

main "$@"
