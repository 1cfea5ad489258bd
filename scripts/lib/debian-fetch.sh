# shellcheck shell=bash
# Sourced (bash) by the release scripts: Debian packages of any architecture and suite, fetched
# as files (never installed), through a private apt state, so that neither the machine's apt
# sources nor its dpkg architectures matter (no `dpkg --add-architecture`, no root).
#
#   source scripts/lib/debian-fetch.sh
#   debian_fetch STATE SUITE DEST PKG:ARCH...   # the .debs into DEST (kept: a file already there
#                                               # is not fetched again)
#   debian_extract DEST DIR                     # every .deb of DEST unpacked into DIR (a sysroot)
#
# STATE is a folder of the caller's (the suite's index, about 25 MB, fetched once and again only
# when a package is not found in it, as after a point release); the release scripts share
# $ABLOOM_BUILD_ROOT/debian-apt. SUITE is a Debian suite name:
# bookworm (Debian 12: CPython 3.11), trixie (Debian 13: CPython 3.13). Packages come from
# ${DEBIAN_MIRROR:-http://deb.debian.org/debian}, main, signed by the keys of Debian's
# debian-archive-keyring (which Debian 12 ships with Debian 13's keys).
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_KEYRING=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

debian_fetch() {
  local state=${1:?debian_fetch STATE SUITE DEST PKG:ARCH...} suite=${2:?suite} dest=${3:?dest}
  shift 3
  local dir=$state/$suite opts
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dest"
  echo "deb [arch=amd64,arm64 signed-by=$DEBIAN_KEYRING] $DEBIAN_MIRROR $suite main" >"$dir/sources.list"
  opts=(-o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent
    -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" -o Dir::State::status=/dev/null
    -o APT::Architecture=amd64 -o APT::Architectures::=amd64 -o APT::Architectures::=arm64
    -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o Acquire::Retries=5 -q)
  local want=() pkg name arch
  for pkg in "$@"; do # a package already in DEST (any version) is not fetched again
    name=${pkg%%:*} arch=${pkg#*:}
    compgen -G "$dest/${name}_*_${arch}.deb" >/dev/null || compgen -G "$dest/${name}_*_all.deb" >/dev/null ||
      want+=("$pkg")
  done
  [[ ${#want[@]} -eq 0 ]] && return 0
  if [[ -f "$dir/updated" ]] && (cd "$dest" && apt-get "${opts[@]}" download "${want[@]}") >"$dir/download.log" 2>&1; then
    return 0
  fi
  # A mirror caught mid-sync answers with mismatched indexes for a while: try the update again.
  local try
  for try in 1 2 3; do
    apt-get "${opts[@]}" update >"$dir/update.log" 2>&1 && break
    [[ $try -lt 3 ]] || { cat "$dir/update.log" >&2 && echo "debian_fetch: apt-get update of $suite failed 3 times" >&2 && return 1; }
    sleep $((try * 20))
  done
  touch "$dir/updated"
  (cd "$dest" && apt-get "${opts[@]}" download "${want[@]}") >"$dir/download.log" 2>&1 ||
    { cat "$dir/download.log" >&2 && echo "debian_fetch: apt-get download ${want[*]} ($suite) failed" >&2 && return 1; }
}

debian_extract() {
  local dest=${1:?debian_extract DEST DIR} dir=${2:?dir} deb
  mkdir -p "$dir"
  for deb in "$dest"/*.deb; do dpkg-deb -x "$deb" "$dir"; done
  # Merged /usr (Debian 13's packages ship /usr/lib only; base-files makes /lib a link): without
  # the link, a program's loader (/lib/ld-linux-*.so.1) and libraries would be looked for under
  # `qemu -L DIR`'s /lib in vain, and then found on the build machine instead.
  if [[ ! -e "$dir/lib" && -d "$dir/usr/lib" ]]; then ln -s usr/lib "$dir/lib"; fi
}
