package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Which inherited or given options choose a collector, so the pool adds none of its own: a tuning flag that merely
 * ends in "GC" was taken for one, and the workers lost their fast-starting serial collector (review of stop 49).
 */
class InheritedJavaOptionsTest {
    @Test
    void onlyOptionsThatSelectACollectorCount() {
        for (String choice : List.of("-XX:+UseSerialGC", "-XX:+UseParallelGC", "-XX:+UseG1GC", "-XX:+UseZGC",
                "-XX:+UseShenandoahGC", "-XX:+UseEpsilonGC")) {
            assertTrue(InheritedJavaOptions.chooseCollector(List.of("-Xmx1g", choice)), choice);
        }
        for (String tuning : List.of("-XX:+UseAdaptiveSizePolicyWithSystemGC", "-XX:-UseG1GC", "-XX:+UseStringDeduplication",
                "-XX:+ExplicitGCInvokesConcurrent", "-Dname=-XX:+UseG1GC")) {
            assertFalse(InheritedJavaOptions.chooseCollector(List.of(tuning)), tuning);
        }
    }
}
