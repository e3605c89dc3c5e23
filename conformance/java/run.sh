#!/usr/bin/env bash
# Runs the Java SDK conformance suite against a freshly started cosmolite (HTTPS) through ../with_server.py.
# COSMOLITE_BIN selects the server binary (default ../../build/cosmolite). With COSMOS_ENDPOINT (and COSMOS_KEY)
# already set, no server is started and the suite runs against that account.
# Extra arguments go to Maven, e.g.  ./run.sh -Dtest=PatchTest   or   ./run.sh -Dtest='QueryTest#orderBy*'
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
# MAVEN_REPO_LOCAL (optional): use that local repository instead of ~/.m2/repository
REPO_ARG=()
[[ -n "${MAVEN_REPO_LOCAL:-}" ]] && REPO_ARG=(-Dmaven.repo.local="$MAVEN_REPO_LOCAL")

[[ -f target/.installed ]] || ./install.sh

if [[ "${1:-}" == "--inside" ]]; then
  shift
  ARGLINE=""
  if [[ -n "${COSMOS_CERT_PEM:-}" ]]; then
    # trust the served certificate: import it into a PKCS#12 trust store for the test JVM
    STORE="$HERE/target/cosmolite-trust.p12"
    rm -f "$STORE"
    keytool -importcert -noprompt -alias cosmolite -file "$COSMOS_CERT_PEM" -keystore "$STORE" \
      -storetype PKCS12 -storepass changeit >/dev/null 2>&1
    ARGLINE="-Djavax.net.ssl.trustStore=$STORE -Djavax.net.ssl.trustStorePassword=changeit -Djavax.net.ssl.trustStoreType=PKCS12"
  fi
  # -q keeps Maven quiet; the suite's listener prints one line per test and "N passed, M failed"
  mvn "${REPO_ARG[@]}" -q -o -B test -Dcosmos.argLine="$ARGLINE" "$@" 2>&1 \
    | awk '{ gsub(/\033\[[0-9;]*m/, ""); if (length($0) > 600) $0 = substr($0, 1, 600) " ..."; print; fflush() }'
  exit "${PIPESTATUS[0]}"
fi

exec python3 "$HERE/../with_server.py" -- "$HERE/run.sh" --inside "$@"
