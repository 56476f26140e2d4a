package dev.sharray.pool;

import java.util.ArrayList;
import java.util.List;

/**
 * The JVM options a worker's {@code java} launcher reads from the environment it inherits from this process
 * ({@code JAVA_TOOL_OPTIONS}, {@code JDK_JAVA_OPTIONS}, {@code _JAVA_OPTIONS}): part of what a class-data archive
 * is made for.
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
}
