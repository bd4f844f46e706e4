#!/bin/sh
# Runs ARX and cellsafe side by side with the ARX kit (../shared/arx-bench, or $ARX_BENCH)
# on the cases of this folder, one kit run per case so that each is capped in time.
#
#   crates/cellsafe-bench/compare/arx.sh adult      # the kit's ten Adult cases
#   crates/cellsafe-bench/compare/arx.sh adult-uci  # 11, 12 and 13 quasi-identifiers
#
# Extra arguments go to the kit (e.g. --runs 3 --warmup 1). Each case's kit run is
# stopped after $CAP seconds (default 1800): ARX takes minutes on the many-QI cases. The
# kit's table for each case is printed, and its measurements kept in $OUT/ID.json.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
kit=${ARX_BENCH:-$root/../shared/arx-bench}
set_=$1
shift
case $set_ in
adult) cases=$here/adult-cases.tsv data=$kit/../data/adult ;;
adult-uci) cases=$here/adult-uci-cases.tsv data=$root/examples/adult-uci ;;
*) echo "usage: $0 adult|adult-uci [kit arguments]" >&2; exit 2 ;;
esac
out=${OUT:-$root/target/arx-compare}
mkdir -p "$out"
for id in $(grep -v '^#' "$cases" | cut -f1); do
    if ! timeout "${CAP:-1800}" python3 "$kit/bench.py" --cases-file "$cases" --data-dir "$data" \
        --cases "$id" --json "$out/$id.json" "$@"; then
        echo "$id: stopped or failed (cap ${CAP:-1800} s)" >&2
    fi
done
