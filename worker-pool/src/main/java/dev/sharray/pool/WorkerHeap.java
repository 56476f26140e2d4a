package dev.sharray.pool;

import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * An estimate of a worker's maximum heap, for choices that must leave it room: the pool's {@code heapSize}, else
 * the last {@code -Xmx} of the workers' options, else the JVM's default (a quarter of the memory this process
 * sees: the host's, or its container's limit). Options such as {@code -XX:MaxRAMPercentage} are not read.
 */
final class WorkerHeap {
    private WorkerHeap() {
    }

    /**
     * @param heapSize   the pool's {@code heapSize} ("512m"), or null
     * @param jvmOptions the workers' extra options
     * @return the estimate in bytes
     */
    static long maxBytes(String heapSize, List<String> jvmOptions) {
        if (heapSize != null) {
            return parse(heapSize);
        }
        for (int i = jvmOptions.size() - 1; i >= 0; i--) {
            final String option = jvmOptions.get(i);
            if (option.matches("-Xmx\\d+[kKmMgGtT]?")) {
                return parse(option.substring(4));
            }
        }
        try {
            final java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean) {
                return ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize() / 4;
            }
        } catch (LinkageError e) {
            // a runtime image without java.management or jdk.management: this JVM's own heap then
        }
        return Runtime.getRuntime().maxMemory();
    }

    /** @return the bytes of an {@code -Xmx} value ("512m", "4g", "1048576"), saturating */
    static long parse(String size) {
        final char unit = Character.toLowerCase(size.charAt(size.length() - 1));
        final int shift = unit == 'k' ? 10 : unit == 'm' ? 20 : unit == 'g' ? 30 : unit == 't' ? 40 : 0;
        final String digits = shift == 0 ? size : size.substring(0, size.length() - 1);
        if (digits.length() > 18) { // past a long (the builder's pattern takes any number of digits)
            return Long.MAX_VALUE;
        }
        final long number = Long.parseLong(digits);
        return number > Long.MAX_VALUE >> shift ? Long.MAX_VALUE : number << shift;
    }
}
