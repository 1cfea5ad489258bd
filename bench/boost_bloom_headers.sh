#!/usr/bin/env bash
# Assembles the include tree that bench/boost_bloom_peer needs (issue 53): Boost.Bloom and the
# Boost libraries its headers include, each at the commit below, from their public repositories.
# Nothing of Boost is kept in this repository; the tree goes where you say, outside it.
#
# usage: bench/boost_bloom_headers.sh DEST
#   DEST/include/boost/... is made (DEST must not exist yet); then configure with
#   -DABLOOM_BENCH_BOOST_BLOOM=DEST/include.
# BOOST_REPO_URL (default https://github.com/boostorg/%s.git) is where each library's repository
# is, %s its name: point it at local clones or mirrors to work offline.
#
# The commits: Boost 1.90.0's tags (boost-1.90.0) where the repositories used had that tag; for
# bloom, throw_exception and type_traits, the newest commit they had (bloom's develop and master
# of 2025-10-20, which has 1.90's bulk insert and may_contain; throw_exception's of 2024-12-12 and
# type_traits' of 2025-04-21, both older than 1.90.0). That set is what the figures in
# bench/RESULTS.md ("In cache against Boost.Bloom") were measured with. The libraries are the ones
# boost_bloom_peer.cpp's includes reach (g++ -M lists them): bloom, assert, config,
# container_hash, core, describe, mp11, throw_exception (boost/exception/), type_traits.
set -euo pipefail
dest=${1:?usage: boost_bloom_headers.sh DEST}
url=${BOOST_REPO_URL:-https://github.com/boostorg/%s.git}
[[ ! -e $dest ]] || {
  echo "boost_bloom_headers.sh: $dest exists" >&2
  exit 1
}
commits=(
  bloom:7eda52eec0f44cb9936393568e58891376cc9ccf           # develop/master, 2025-10-20
  assert:e107bd7b556d72ef5273c17f4099198a28edaa4d          # boost-1.90.0
  config:a7d5a9b05d70c9cfea980dc3539ca3d3461411b3          # boost-1.90.0
  container_hash:060d4aea6b5b59d2c9146b7d8e994735b2c0a582  # boost-1.90.0
  core:239953da9f0f11883f96548032b13ff0fd6453bb            # boost-1.90.0
  describe:ee215421cb33a915620855cd892377e6d16c0fad        # boost-1.90.0
  mp11:fe7447470d96b80eefed91b6206a4a240b664b73            # boost-1.90.0
  throw_exception:f3d4d55f52894fda75ef2915dc122e3133b97b45 # develop, 2024-12-12
  type_traits:085c27f785b647c217db59af7cef8806af578012     # develop, 2025-04-21
)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"
for entry in "${commits[@]}"; do
  name=${entry%%:*} commit=${entry#*:}
  # shellcheck disable=SC2059 # the URL pattern is the format on purpose
  repo_url=$(printf "$url" "$name")
  git init -q "$work/$name"
  git -C "$work/$name" fetch -q --depth 1 "$repo_url" "$commit"
  git -C "$work/$name" archive FETCH_HEAD include | tar -x -C "$dest"
  echo "$name $commit"
done
[[ -f $dest/include/boost/bloom/filter.hpp ]]
echo "boost_bloom_headers.sh: $dest/include is ready (-DABLOOM_BENCH_BOOST_BLOOM=$dest/include)"
