#!/usr/bin/env bash
# The documentation's lists against what they describe: the Requirements of docs/install.md name
# every package scripts/install-deps.sh installs, the command-line usage block of docs/reference.md
# every form of the command (new-kernel included), and every relative link of README.md and
# docs/*.md names a file or folder that exists.
# Usage: readme_lists.sh SOURCE_DIR
set -u
src=$1
install=$src/docs/install.md
reference=$src/docs/reference.md
fails=0
check() { if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: got '$2', want '$3'"; fails=$((fails + 1)); fi; }
# the packages: the words of the pkgs=( ... ) array
pkgs=$(sed -n '/^pkgs=(/,/)/p' "$src/scripts/install-deps.sh" | tr -d '()' | sed 's/^pkgs=//' | tr -s ' \t' '\n' | grep -v '^$')
[ -n "$pkgs" ] || { echo "FAIL: no pkgs=( ... ) in scripts/install-deps.sh"; exit 1; }
# the list: the Requirements item on the packages, the one that names install-deps.sh
list=$(awk 'on && (/^$/ || /^- /) { exit } /^- .*[Pp]ackages.*install-deps\.sh/ { on = 1 } on' "$install")
[ -n "$list" ] || { echo "FAIL: docs/install.md has no package list naming scripts/install-deps.sh"; exit 1; }
missing=""
for p in $pkgs; do
  printf '%s\n' "$list" | grep -Eq "(^|[^A-Za-z0-9_.+-])$(printf '%s' "$p" | sed 's/[.+]/\\&/g')([^A-Za-z0-9_.+-]|$)" ||
    missing="$missing $p"
done
check "docs/install.md's package list names every package install-deps.sh installs" "${missing# }" ""
# the usage block: the first code block of "## Command line", every form --help prints
usage=$(awk '/^## Command line/ { sec = 1; next } sec && /^```/ { if (code) exit; code = 1; next } code' "$reference")
[ -n "$usage" ] || { echo "FAIL: docs/reference.md has no usage block under '## Command line'"; exit 1; }
for form in "kernelscope bench" "kernelscope new-kernel"; do
  check "docs/reference.md's usage names '$form'" "$(printf '%s\n' "$usage" | grep -c "^$form " | awk '{ print ($1 > 0) ? "yes" : "no" }')" yes
done
# the links: every ](target) outside code blocks whose target is not a URL or an anchor of the same
# page, its anchor cut off, resolved against the page's folder
broken=""
for page in "$src/README.md" "$src"/docs/*.md; do
  dir=$(dirname "$page")
  targets=$(awk '/^```/ { code = !code; next } !code' "$page" | grep -o '](\([^) ]*\))' | sed 's/^](//; s/)$//')
  for t in $targets; do
    case $t in [a-z]*:*|'#'*) continue ;; esac
    [ -e "$dir/${t%%#*}" ] || broken="$broken ${page#"$src"/}:$t"
  done
done
check "every relative link of README.md and docs/*.md names a file that exists" "${broken# }" ""
exit $((fails > 0))
