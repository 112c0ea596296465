#!/usr/bin/env bash
# llmjson: CPU seconds to compile each public header on its own, against nlohmann/json alone
# SPDX-License-Identifier: MIT
#
# Usage: tests/bench/compile_cost.sh [-r REPEATS] [-j JOBS] [-c COMPILER] [-- EXTRA FLAGS...]
# Compiles, for nlohmann/json alone and then for each include/llmjson/*.hpp, a file holding just
# that #include (-std=c++20 -O2 -c, no output kept), then tests/cmake/main.cpp (a program that
# calls extract() once), each REPEATS times (default 3), and prints a Markdown table of the least
# user+system CPU time of each, and its excess over nlohmann alone.
# The least of several runs is the one least disturbed by other work on the machine. A header that
# does not compile on its own fails the script (each public header must be self-contained).
# -j JOBS compiles that many files at once (CI: 2, one a core); CPU time changes little with it,
# but for figures to compare, measure with -j 1 on a quiet machine.
set -euo pipefail
repeats=3
jobs=1
cxx=${CXX:-g++}
while [ $# -gt 0 ]; do
  case $1 in
    -r) repeats=$2; shift 2 ;;
    -j) jobs=$2; shift 2 ;;
    -c) cxx=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-r REPEATS] [-j JOBS] [-c COMPILER] [-- EXTRA FLAGS...]" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cpu_seconds FILE [FLAGS...]: the least user+sys CPU seconds of $repeats compilations of FILE
cpu_seconds() {
  local file=$1 best="" t i
  shift
  for ((i = 0; i < repeats; i++)); do
    t=$( { TIMEFORMAT='%U %S'; time "$cxx" -std=c++20 -O2 "$@" -I"$root/include" -c "$file" \
             -o /dev/null 2>"$work/err" >&2; } 2>&1 ) ||
      { cat "$work/err" >&2; echo "$file does not compile" >&2; return 1; }
    t=$(awk '{printf "%.2f", $1 + $2}' <<<"$t")
    if [ -z "$best" ] || awk -v a="$t" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$t; fi
  done
  echo "$best"
}

echo '#include <nlohmann/json.hpp>' >"$work/nlohmann.cpp"
base=$(cpu_seconds "$work/nlohmann.cpp" "$@")
echo "$("$cxx" --version | head -n 1), -std=c++20 -O2${*:+ $*}, least of $repeats runs"
echo
echo "| translation unit | CPU s | over nlohmann alone |"
echo "|---|---:|---:|"
echo "| \`<nlohmann/json.hpp>\` | $base | |"
# The rows, measured $jobs at a time, each into $work/row.N, then printed in order.
rows=0
row() {  # row LABEL FILE [FLAGS...]
  local label=$1 file=$2 n=$rows
  shift 2
  rows=$((rows + 1))
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  {
    local s
    s=$(cpu_seconds "$file" "$@") || { echo FAILED >"$work/row.$n"; exit 1; }
    echo "| $label | $s | $(awk -v a="$s" -v b="$base" 'BEGIN {printf "%+.2f", a - b}') |" >"$work/row.$n"
  } &
}
for h in "$root"/include/llmjson/*.hpp; do
  name=$(basename "$h")
  echo "#include <llmjson/$name>" >"$work/$name.cpp"
  if [ "$name" = src.hpp ]; then  # the bodies, compiled once in a separately compiled build
    row "\`<llmjson/$name>\` (-DLLMJSON_SEPARATE_COMPILATION)" "$work/$name.cpp" "$@" \
      -DLLMJSON_SEPARATE_COMPILATION
  else
    row "\`<llmjson/$name>\`" "$work/$name.cpp" "$@"
  fi
done
# A program that calls extract() once: the scanner is compiled into each such translation unit.
row "tests/cmake/main.cpp (calls \`extract\`)" "$root/tests/cmake/main.cpp" "$@"
wait
failed=0
for ((n = 0; n < rows; n++)); do
  if grep -qx FAILED "$work/row.$n"; then failed=1; else cat "$work/row.$n"; fi
done
exit "$failed"
