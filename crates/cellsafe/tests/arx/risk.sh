#!/bin/sh
# Prints ARX's risk estimates for every case of risk_cases.txt on the bundled Adult data,
# one JSON object per line (the expected values of tests/arx_risk.rs, kept in risk.jsonl):
#
#   crates/cellsafe/tests/arx/risk.sh ARX_JAR > crates/cellsafe/tests/arx/risk.jsonl
#
# Needs a JDK (javac and java) and ARX's jar (the arx-bench kit's arx.jar).
set -eu
jar=$1
here=$(cd "$(dirname "$0")" && pwd)
adult=$here/../../../../examples/adult
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -cp "$jar" -d "$out" "$here/RiskDriver.java"
qi=sex,age,race,marital-status,education,native-country,workclass,salary-class
while read -r args; do
    [ -n "$args" ] || continue
    # shellcheck disable=SC2086
    java -cp "$jar:$out" RiskDriver --data "$adult/adult.csv" --delimiter ';' --qi "$qi" $args
done < "$here/risk_cases.txt"
