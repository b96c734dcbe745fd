#!/usr/bin/env bash
# `npm run pack`: builds each client library as the artifact its ecosystem installs, into
# dist/packages/ (ignored by git): the npm tarballs of clients/typescript and of its OpenFeature
# providers (clients/typescript-openfeature, clients/typescript-openfeature-web), the wheels of
# clients/python, of its speedups extra's C part (clients/python-speedups, compiled here for
# this machine's Python) and of its OpenFeature provider (clients/python-openfeature), and the
# jars of clients/java, clients/java-langchain4j and clients/java-openfeature.
# Usage: [PACK_OUT=dir] bash scripts/pack.sh [typescript|typescript-openfeature|python|java ...]
# (default: all four; PACK_OUT defaults to dist/packages)
set -euo pipefail
cd "$(dirname "$0")/.."
out="${PACK_OUT:-$PWD/dist/packages}"
mkdir -p "$out"
wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=(typescript typescript-openfeature python java)
made=()

for lib in "${wanted[@]}"; do
  case "$lib" in
    typescript)
      node scripts/build.mjs
      made+=("$out/$(npm pack --silent --pack-destination "$out" -w @arbiter/client | tail -n 1)")
      ;;
    typescript-openfeature)
      for provider in @arbiter/openfeature-provider @arbiter/openfeature-web-provider; do
        npm run --silent build -w "$provider" >/dev/null
        made+=("$out/$(npm pack --silent --pack-destination "$out" -w "$provider" | tail -n 1)")
      done
      ;;
    python)
      python="${ARBITER_PYTHON:-python3}"
      rm -f "$out"/*.whl
      # pip builds each wheel in an isolated environment with the build backend the project
      # names in pyproject.toml, fetched from PyPI. With both in one folder,
      # `pip install --find-links <folder> "arbiter-client[speedups]"` finds the extra's pinned
      # arbiter-client-speedups there.
      "$python" -m pip wheel --quiet --no-deps --wheel-dir "$out" clients/python clients/python-speedups \
        clients/python-openfeature
      for wheel in "$out"/*.whl; do made+=("$wheel"); done
      ;;
    java)
      if ! command -v mvn >/dev/null; then
        echo "pack: the Java client needs Maven (sudo apt-get install maven)" >&2
        exit 1
      fi
      # The Java artifacts, from their reactor: the client, its LangChain4j listener and its
      # OpenFeature provider.
      mvn -q -f clients/java-reactor/pom.xml -DskipTests package
      for jar in clients/java/target/*.jar clients/java-langchain4j/target/*.jar \
        clients/java-openfeature/target/*.jar; do
        case "$jar" in *-sources.jar | *-javadoc.jar | *-tests.jar) continue ;; esac
        cp "$jar" "$out/"
        made+=("$out/$(basename "$jar")")
      done
      ;;
    *)
      echo "pack: unknown library $lib (typescript, typescript-openfeature, python, java)" >&2
      exit 2
      ;;
  esac
done

printf 'packed:\n'
printf '  %s\n' "${made[@]}"
