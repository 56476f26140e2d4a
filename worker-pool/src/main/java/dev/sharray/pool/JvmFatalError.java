package dev.sharray.pool;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects the fatal error banner a dying HotSpot JVM prints (to its standard output unless told otherwise):
 * a worker that crashes in native code (a SIGSEGV in a native library or in Unsafe) or runs out of native
 * memory ends with SIGABRT, and without this banner its {@link WorkerCrashedException} would say only that.
 * One instance per output stream, fed line by line on that stream's forwarding thread.
 */
final class JvmFatalError {
    private static final String CRASH_BANNER = "# A fatal error has been detected by the Java Runtime Environment:";
    private static final String MEMORY_BANNER = "# There is insufficient memory for the Java Runtime Environment to continue.";
    private static final String FRAME = "Problematic frame:";
    private static final String REPORT = "An error report file with more information is saved as:";
    /** The process id on the banner's error line ("SIGSEGV (0xb) at pc=..., pid=1234, tid=1235"). */
    private static final java.util.regex.Pattern PID = java.util.regex.Pattern.compile("\\bpid=(\\d+)\\b");
    /** The banner is ~20 lines; what follows it is not the JVM's. */
    private static final int MAX_LINES = 40;

    private List<String> block;
    private boolean outOfMemory;

    /** Looks at one line of the stream. */
    synchronized void accept(String line) {
        if (line.equals(CRASH_BANNER) || line.equals(MEMORY_BANNER)) {
            block = new ArrayList<>();
            outOfMemory = line.equals(MEMORY_BANNER);
        } else if (block != null && block.size() < MAX_LINES && line.startsWith("#")) {
            block.add(line.substring(1).trim());
        }
    }

    /**
     * @return what the JVM said went wrong, where, and where its report is, on one line ("SIGSEGV (0xb) at pc=...
     *         in V [libjvm.so+0x...] Unsafe_PutLong+0x124"), or null when the stream carried no banner
     */
    synchronized String summary() {
        if (block == null) {
            return null;
        }
        final StringBuilder sb = new StringBuilder(outOfMemory ? "out of native memory" : "");
        final String what = firstNonBlank(0);
        if (what != null) {
            sb.append(outOfMemory ? ": " : "").append(what);
        }
        final String frame = after(FRAME);
        if (frame != null) {
            sb.append(" in ").append(frame.replaceAll("\\s+", " "));
        }
        return sb.length() == 0 ? "JVM fatal error" : sb.toString();
    }

    /**
     * @param pid the worker's process id
     * @return whether the banner seen (if any) can be this worker's own: a banner naming another process ("pid=1234",
     *         as HotSpot prints on its error line) is text a task printed, say a child JVM's output or an old report,
     *         and says nothing about how this worker died
     */
    synchronized boolean mayBeFrom(long pid) {
        if (block == null) {
            return false;
        }
        for (String line : block) {
            final java.util.regex.Matcher m = PID.matcher(line);
            if (m.find()) {
                return m.group(1).equals(Long.toString(pid));
            }
        }
        return true;
    }

    /** @return the error report file the JVM named, or null (none written, or no banner) */
    synchronized Path reportFile() {
        final String file = block == null ? null : after(REPORT);
        if (file == null) {
            return null;
        }
        try {
            return Path.of(file);
        } catch (InvalidPathException e) {
            return null;
        }
    }

    private String firstNonBlank(int from) {
        for (int i = from; i < block.size(); i++) {
            if (!block.get(i).isEmpty()) {
                return block.get(i);
            }
        }
        return null;
    }

    /** @return the line after the one that says {@code label}, when it is not blank */
    private String after(String label) {
        final int at = block.indexOf(label);
        return at < 0 || at + 1 >= block.size() || block.get(at + 1).isEmpty() ? null : block.get(at + 1);
    }
}
