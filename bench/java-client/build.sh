#!/usr/bin/env bash
# Builds the Java client (installed into ~/.m2) and the benchmark jar, then prints the load
# average the run starts from. Sourced by run.sh and targeting.sh, which set `here` (this folder)
# first; it leaves the shell in this folder.
root=$(cd "$here/../.." && pwd)
mvn -B -q -ntp -Dstyle.color=never -f "$root/clients/java/pom.xml" install -DskipTests
cd "$here"
mvn -B -q -ntp -Dstyle.color=never package
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
