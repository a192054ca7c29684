# Sourced by scripts/setup*.sh: install_packages NAME PACKAGE... installs those of Debian's
# packages that are missing (as root, or with sudo), quietly; a fresh machine may have no
# package lists yet, so they are refreshed once when an install fails. NAME prefixes the one
# line it prints. Output goes to $INSTALL_LOG when set, else nowhere.
install_packages() {
  local name=$1
  shift
  local sudo="" log=${INSTALL_LOG:-/dev/null} missing=() p
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  for p in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "$name: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
    $sudo apt-get update -qq >>"$log" 2>&1
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1
  fi
}
