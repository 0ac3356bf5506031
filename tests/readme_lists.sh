#!/usr/bin/env bash
# The README's lists against what they describe: its Requirements name every
# package scripts/install-deps.sh installs, and its command-line usage block
# every form of the command (new-kernel included).
# Usage: readme_lists.sh SOURCE_DIR
set -u
src=$1
readme=$src/README.md
fails=0
check() { if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi; }
# the packages: the words of the pkgs=( ... ) array
pkgs=$(sed -n '/^pkgs=(/,/)/p' "$src/scripts/install-deps.sh" | tr -d '()' | sed 's/^pkgs=//' | tr -s ' \t' '\n' | grep -v '^$')
[ -n "$pkgs" ] || { echo "FAIL: no pkgs=( ... ) in scripts/install-deps.sh"; exit 1; }
# the README's list: the Requirements item on the packages, the one that names install-deps.sh
list=$(awk 'on && (/^$/ || /^- /) { exit } /^- .*[Pp]ackages.*install-deps\.sh/ { on = 1 } on' "$readme")
[ -n "$list" ] || { echo "FAIL: README.md has no package list naming scripts/install-deps.sh"; exit 1; }
missing=""
for p in $pkgs; do
  printf '%s\n' "$list" | grep -Eq "(^|[^A-Za-z0-9_.+-])$(printf '%s' "$p" | sed 's/[.+]/\\&/g')([^A-Za-z0-9_.+-]|$)" ||
    missing="$missing $p"
done
check "README's package list names every package install-deps.sh installs" "${missing# }" ""
# the usage block: the first code block of "## Command line", every form --help prints
usage=$(awk '/^## Command line/ { sec = 1; next } sec && /^```/ { if (code) exit; code = 1; next } code' "$readme")
[ -n "$usage" ] || { echo "FAIL: README.md has no usage block under '## Command line'"; exit 1; }
for form in "kernelscope bench" "kernelscope new-kernel"; do
  check "README's usage names '$form'" "$(printf '%s\n' "$usage" | grep -c "^$form " | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
done
exit $((fails > 0))
