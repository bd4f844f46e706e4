#!/bin/sh
# Prints ARX's optimum under delta-presence with the research subset adult_subset_rows.txt
# for the twelve settings of ARX's own Adult delta-presence tests (AECS and entropy,
# monotonic or not; suppression 0 or 5 %; delta in [0, 0.2] or [0.05, 0.15]):
#
#   crates/cellsafe/tests/arx/dpresence.sh ARX_JAR > crates/cellsafe/tests/arx/dpresence.jsonl
set -eu
jar=$1
here=$(cd "$(dirname "$0")" && pwd)
adult=$here/../../../../examples/adult
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -cp "$jar" -d "$out" "$here/DPresenceDriver.java"
qi=sex,age,race,marital-status,education,native-country,workclass,salary-class
for delta in "0.0 0.2" "0.05 0.15"; do
    set -- $delta
    for s in 0.0 0.05; do
        for m in aecs entropy-mono entropy; do
            java -cp "$jar:$out" DPresenceDriver --data "$adult/adult.csv" --delimiter ';' \
                --qi "$qi" --subset "$here/adult_subset_rows.txt" --suppression "$s" \
                --metric "$m" --dmin "$1" --dmax "$2"
        done
    done
done
