#!/bin/sh
# Prints what ARX computes for every case of MODE_cases.txt on the bundled Adult data, one
# JSON object per line: the expected values of cellsafe's ARX parity tests, kept in
# MODE.jsonl. MODE is `risk` (risk estimates, RiskDriver), `models` (the optimum under the
# risk-based models, ModelDriver) or `dpresence` (the optimum under delta-presence with the
# research subset adult_subset_rows.txt, DPresenceDriver):
#
#   crates/cellsafe/tests/arx/arx.sh MODE ARX_JAR > crates/cellsafe/tests/arx/MODE.jsonl
#
# Needs a JDK (javac and java) and ARX's jar (the arx-bench kit's arx.jar).
set -eu
mode=$1
jar=$2
here=$(cd "$(dirname "$0")" && pwd)
adult=$here/../../../../examples/adult
case $mode in
    risk) driver=RiskDriver; extra= ;;
    models) driver=ModelDriver; extra= ;;
    dpresence) driver=DPresenceDriver; extra="--subset $here/adult_subset_rows.txt" ;;
    *) echo "arx.sh: MODE is risk, models or dpresence" >&2; exit 2 ;;
esac
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -cp "$jar" -d "$out" "$here"/*.java
qi=sex,age,race,marital-status,education,native-country,workclass,salary-class
# every case in one JVM (Batch): the driver with these arguments, then the case's line
# shellcheck disable=SC2086
java -cp "$jar:$out" Batch "$driver" "$here/${mode}_cases.txt" \
    --data "$adult/adult.csv" --delimiter ';' --qi "$qi" $extra
