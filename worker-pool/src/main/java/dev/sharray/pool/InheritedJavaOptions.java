package dev.sharray.pool;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options a worker's {@code java} launcher reads from the environment it inherits from this process
 * ({@code JAVA_TOOL_OPTIONS}, {@code JDK_JAVA_OPTIONS}, {@code _JAVA_OPTIONS}): options the pool adds must not
 * contradict them, or every worker fails at start.
 */
final class InheritedJavaOptions {
    private static final String[] VARIABLES = {"JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS"};

    private InheritedJavaOptions() {
    }

    /** @return the options of the three variables, in that order (read at each call: a launch is rare) */
    static List<String> all() {
        final List<String> options = new ArrayList<>();
        for (String variable : VARIABLES) {
            final String value = System.getenv(variable);
            if (value != null && !value.isBlank()) {
                options.addAll(List.of(value.trim().split("\\s+")));
            }
        }
        return options;
    }

    /**
     * The options that select a collector, by name: a pattern such as "-XX:+Use...GC" also took a tuning flag
     * ({@code -XX:+UseAdaptiveSizePolicyWithSystemGC}) for a choice, and the workers lost their fast-starting one.
     */
    private static final java.util.regex.Pattern COLLECTOR =
        java.util.regex.Pattern.compile("-XX:\\+Use(Serial|Parallel|ParallelOld|G1|Z|Shenandoah|Epsilon|ConcMarkSweep)GC");

    /** @return whether {@code options} choose a garbage collector (a JVM refuses two: "Multiple garbage collectors selected") */
    static boolean chooseCollector(List<String> options) {
        return options.stream().anyMatch(o -> COLLECTOR.matcher(o).matches());
    }
}
