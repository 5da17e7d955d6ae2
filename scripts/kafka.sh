#!/usr/bin/env bash
# Provides a real Apache Kafka (KRaft, single node) for integration tests, built only from
# Maven Central jars so that it works where no other download site is reachable.
#
#   scripts/kafka.sh fetch            download the jars once; print the lib dir (the only
#                                     stdout line)
#   scripts/kafka.sh serve DIR PORT   run a one-node broker on 127.0.0.1:PORT (its controller
#                                     on PORT+1), data in DIR, in the foreground: for the
#                                     benchmarks, which start and stop it themselves
#
# The cache lives outside the repo, in ${QUIRE_KAFKA_CACHE:-$HOME/.cache/quire/kafka-4.1.1},
# so that checkouts and `cargo clean` do not pay the ~55 MB download again.
#
# Besides Kafka's jars the lib dir holds quire-line-formatter.jar, a small MessageFormatter
# for Kafka's ConsoleConsumer: the stock formatter cannot print a record's topic, which tests
# reading several topics by regex need.  Needs a JDK (javac, jar), not just a JRE.
set -euo pipefail

KAFKA_VERSION=4.1.1
SLF4J_VERSION=2.0.16
CACHE="${QUIRE_KAFKA_CACHE:-$HOME/.cache/quire/kafka-$KAFKA_VERSION}"
LIB="$CACHE/lib"
# Written into the completion marker: bump it whenever what goes into lib changes (pom,
# formatter), so that an older cache is rebuilt rather than trusted.
RECIPE="kafka $KAFKA_VERSION, slf4j $SLF4J_VERSION, line formatter 1"

usage() {
    echo "usage: $0 fetch | serve DIR PORT" >&2
    exit 2
}

# A lib dir only ever appears by renaming a finished download whose marker was written last,
# so a matching marker means complete and current.
is_complete() {
    [[ -f "$LIB/.complete" && "$(<"$LIB/.complete")" == "$RECIPE" ]]
}

fetch() {
    if is_complete; then
        echo "$LIB"
        return
    fi
    mkdir -p "$CACHE"

    # Tests may start several brokers at once; the lock makes the others wait for the one
    # download instead of running mvn side by side on the same local repository.
    exec 9>"$CACHE/.lock"
    flock 9
    if is_complete; then
        echo "$LIB"
        return
    fi

    # Leftovers of fetches that were killed outright; holding the lock, none is in use.
    rm -rf "$CACHE"/.fetch.*

    # Global, not local: the EXIT trap runs after fetch() has returned.
    work="$(mktemp -d "$CACHE/.fetch.XXXXXX")"
    # Whatever happens, an unfinished download must not be left looking like a lib dir.
    trap 'rm -rf "$work"' EXIT

    write_pom "$work/pom.xml"
    # stdout is reserved for the lib path, so mvn's chatter goes to stderr.
    (cd "$work" && mvn -q -B \
        dependency:copy-dependencies -DoutputDirectory=lib) >&2

    # Sanity check before declaring the download good: the jars the tests run from.
    local jar
    for jar in kafka_2.13-$KAFKA_VERSION.jar kafka-tools-$KAFKA_VERSION.jar \
        kafka-clients-$KAFKA_VERSION.jar slf4j-api-$SLF4J_VERSION.jar \
        slf4j-simple-$SLF4J_VERSION.jar; do
        if [[ ! -f "$work/lib/$jar" ]]; then
            echo "kafka.sh: $jar missing after mvn; not caching" >&2
            exit 1
        fi
    done

    build_formatter "$work"

    echo "$RECIPE" >"$work/lib/.complete"
    rm -rf "$LIB" # a stale lib from an older recipe; running JVMs keep their open jars
    mv -T "$work/lib" "$LIB"
    echo "$LIB"
}

# The pom is a throwaway that only names what to download; it lives in the temp dir so that
# nothing is written into the repo.  kafka-tools carries the console consumer/producer and
# topic command; slf4j-simple gives every JVM a logger that writes to stderr.
write_pom() {
    cat >"$1" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>quire.test</groupId>
  <artifactId>kafka-jars</artifactId>
  <version>0</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka_2.13</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-tools</artifactId>
      <version>$KAFKA_VERSION</version>
    </dependency>
    <!-- Kafka's own tree brings slf4j-api 1.7, which cannot see a 2.x provider and would
         silently log nothing; the broker log is what tells the tests it is ready. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-api</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-simple</artifactId>
      <version>$SLF4J_VERSION</version>
    </dependency>
  </dependencies>
</project>
EOF
}

# Output, one record per line, tab-separated: topic, partition, offset, key, value, then each
# header's name and value.  Fields are escaped (\\ \t \n \r) so that no byte of the data can
# end a field or a line, and a null key, value or header value is written as \N, which
# escaping never produces.  Bytes go out as UTF-8 whatever the JVM's default charset is.
build_formatter() {
    local dir="$1"
    mkdir -p "$dir/src/quire/kafka" "$dir/classes"
    cat >"$dir/src/quire/kafka/LineFormatter.java" <<'JAVA'
package quire.kafka;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.MessageFormatter;
import org.apache.kafka.common.header.Header;

public class LineFormatter implements MessageFormatter {
    @Override
    public void writeTo(ConsumerRecord<byte[], byte[]> record, PrintStream out) {
        StringBuilder line = new StringBuilder();
        field(line, record.topic());
        line.append('\t').append(record.partition());
        line.append('\t').append(record.offset());
        line.append('\t');
        field(line, record.key());
        line.append('\t');
        field(line, record.value());
        for (Header header : record.headers()) {
            line.append('\t');
            field(line, header.key());
            line.append('\t');
            field(line, header.value());
        }
        line.append('\n');
        out.writeBytes(line.toString().getBytes(StandardCharsets.UTF_8));
        // The test reads lines as they come; do not let records sit in a buffer.
        out.flush();
    }

    private static void field(StringBuilder line, byte[] bytes) {
        if (bytes == null) {
            line.append("\\N");
        } else {
            field(line, new String(bytes, StandardCharsets.UTF_8));
        }
    }

    private static void field(StringBuilder line, String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\': line.append("\\\\"); break;
                case '\t': line.append("\\t"); break;
                case '\n': line.append("\\n"); break;
                case '\r': line.append("\\r"); break;
                default: line.append(c);
            }
        }
    }
}
JAVA
    javac -nowarn -cp "$dir/lib/*" -d "$dir/classes" "$dir/src/quire/kafka/LineFormatter.java" >&2
    jar cf "$dir/lib/quire-line-formatter.jar" -C "$dir/classes" . >&2
}

# The tests' broker (crates/kafka-test) and the benchmarks' both run this: broker and
# controller in one JVM, every replication factor 1, as a one-node cluster needs.
serve() {
    local dir="$1" port="$2" lib java opts
    lib="$(fetch)"
    java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
    # The tests set their own (a smaller heap, C1 only, timestamps in the log).
    read -r -a opts <<<"${QUIRE_KAFKA_JAVA_OPTS:--Xmx1g}"
    mkdir -p "$dir"
    cat >"$dir/server.properties" <<PROPERTIES
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$((port + 1))
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$((port + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
PROPERTIES
    if [[ ! -d "$dir/data" ]]; then
        # Any 16-byte base64url id will do ("quire-test-kafka"): each broker has its own
        # data dir.
        "$java" "${opts[@]}" -cp "$lib/*" kafka.tools.StorageTool format \
            -t cXVpcmUtdGVzdC1rYWZrYQ -c "$dir/server.properties" >&2
    fi
    exec "$java" "${opts[@]}" -cp "$lib/*" kafka.Kafka "$dir/server.properties"
}

case "${1:-}" in
    fetch) fetch ;;
    serve) [[ $# -eq 3 ]] || usage; serve "$2" "$3" ;;
    *) usage ;;
esac
