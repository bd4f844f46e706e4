#!/bin/sh
# Prints ARX's optimum under its risk-based privacy models for every case of
# model_cases.txt on the bundled Adult data, one JSON object per line:
#
#   crates/cellsafe/tests/arx/models.sh ARX_JAR > crates/cellsafe/tests/arx/models.jsonl
#
# Needs a JDK (javac and java) and ARX's jar (the arx-bench kit's arx.jar).
set -eu
jar=$1
here=$(cd "$(dirname "$0")" && pwd)
adult=$here/../../../../examples/adult
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -cp "$jar" -d "$out" "$here/ModelDriver.java"
qi=sex,age,race,marital-status,education,native-country,workclass,salary-class
while read -r args; do
    [ -n "$args" ] || continue
    # shellcheck disable=SC2086
    java -cp "$jar:$out" ModelDriver --data "$adult/adult.csv" --delimiter ';' --qi "$qi" $args
done < "$here/model_cases.txt"
