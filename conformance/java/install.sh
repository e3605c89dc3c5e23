#!/usr/bin/env bash
# Resolves everything the Java conformance suite needs (azure-cosmos 4.81.0 under azure-sdk-bom 1.3.8, JUnit 5,
# Maven plugins and surefire's JUnit Platform provider) into ~/.m2, so that run.sh works offline (mvn -o).
# Idempotent: a stamp in target/ records the pom it resolved; a second run with the same pom is a no-op.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
# MAVEN_REPO_LOCAL (optional): use that local repository instead of ~/.m2/repository
REPO_ARG=()
[[ -n "${MAVEN_REPO_LOCAL:-}" ]] && REPO_ARG=(-Dmaven.repo.local="$MAVEN_REPO_LOCAL")

command -v java >/dev/null || { echo "install.sh: java (JDK 17) not found" >&2; exit 1; }
command -v mvn >/dev/null || { echo "install.sh: mvn (Maven 3.8+) not found" >&2; exit 1; }

STAMP="$HERE/target/.installed"
SUM="$(sha256sum pom.xml | cut -d' ' -f1)"
REPO="${MAVEN_REPO_LOCAL:-$HOME/.m2/repository}"
if [[ -f "$STAMP" && "$(cat "$STAMP")" == "$SUM" \
      && -f "$REPO/com/azure/azure-cosmos/4.81.0/azure-cosmos-4.81.0.jar" \
      && -f "$REPO/org/apache/maven/surefire/surefire-junit-platform/3.5.2/surefire-junit-platform-3.5.2.jar" ]]; then
  echo "install.sh: dependencies already in $REPO (nothing to do)"
  exit 0
fi

echo "install.sh: resolving dependencies into ${MAVEN_REPO_LOCAL:-~/.m2/repository} ..."
mkdir -p "$HERE/target"
LOG="$HERE/target/install.log"
# go-offline: the dependencies and plugins of the pom; then compile and run the harness self-test (no server needed),
# which makes surefire fetch what it resolves only when it forks a test JVM (its JUnit Platform provider)
if ! { mvn "${REPO_ARG[@]}" -q -B dependency:go-offline \
       && mvn "${REPO_ARG[@]}" -q -B test -Dtest=HarnessSelfTest; } >"$LOG" 2>&1; then
  sed 's/\x1b\[[0-9;]*m//g' "$LOG" >&2
  echo "install.sh: FAILED (log: $LOG)" >&2
  exit 1
fi
echo "$SUM" > "$STAMP"
echo "install.sh: done"
