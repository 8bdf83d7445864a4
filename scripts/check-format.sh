#!/usr/bin/env bash
# Checks that every C++ and CUDA source is as clang-format (the repository's .clang-format)
# writes it; lists the files that are not and exits non-zero. Fix with:
#   git ls-files '*.cpp' '*.hpp' '*.cc' '*.h' '*.cu' | xargs clang-format -i
set -euo pipefail
cd "$(dirname "$0")/.."
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -d '' files < <(git ls-files -z '*.cpp' '*.hpp' '*.cc' '*.h' '*.cu')
else
  mapfile -d '' files < <(find sim calibrate validate tests bench -type f \
    \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cc' -o -name '*.h' -o -name '*.cu' \) -print0)
fi
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
if ! clang-format --dry-run -Werror "${files[@]}" 2>"$report"; then
  grep ': error: ' "$report" | cut -d: -f1 | sort -u | sed 's/^/not formatted: /' >&2
  echo "format: run clang-format -i on the files above" >&2
  exit 1
fi
echo "format: ${#files[@]} files as clang-format writes them"
