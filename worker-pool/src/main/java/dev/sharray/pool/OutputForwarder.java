package dev.sharray.pool;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Forwards one output stream of a worker to the parent's console, line by line, each line prefixed
 * with the worker's id, and keeps the last lines for crash reports. Lines longer than {@value #MAX_LINE_BYTES}
 * bytes go out in pieces.
 */
final class OutputForwarder {
    /** The JVM prints this for every start with the project's flags; it says nothing about the worker. */
    private static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: jdk.incubator.vector";
    /**
     * The launcher and the JVM print one of these at every start that takes options from the environment, which the
     * workers inherit from the parent: the parent printed the same line already.
     */
    private static final String[] ENVIRONMENT_OPTION_NOTES = {"NOTE: Picked up JDK_JAVA_OPTIONS: ",
        "Picked up JAVA_TOOL_OPTIONS: ", "Picked up _JAVA_OPTIONS: "};
    private static final int TAIL = 20;
    /** The longest line forwarded (and kept for crash reports) in one piece, in bytes. */
    static final int MAX_LINE_BYTES = 8192;

    private final ArrayDeque<String> tail = new ArrayDeque<>(TAIL);
    private final JvmFatalError fatalError = new JvmFatalError();
    private final Thread thread;

    /**
     * Starts forwarding on a daemon thread.
     *
     * @param in     the worker's stream
     * @param prefix put before each line
     * @param target where lines go
     * @param name   thread name
     */
    OutputForwarder(InputStream in, String prefix, PrintStream target, String name) {
        thread = new Thread(() -> forward(in, prefix, target), name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * Reads the stream to its end, line by line ({@code \n}, {@code \r} or {@code \r\n} end a line, as for
     * {@link java.io.BufferedReader#readLine}). A line longer than {@link #MAX_LINE_BYTES} goes out in pieces of at
     * most that many bytes (cut between characters): a worker printing megabytes without a newline must not make this
     * JVM hold them all, or run out of heap and stop draining the pipe, which would block the worker's next print.
     */
    private void forward(InputStream in, String prefix, PrintStream target) {
        final byte[] chunk = new byte[8192];
        final byte[] line = new byte[MAX_LINE_BYTES];
        int length = 0;
        boolean afterCr = false;
        try (InputStream stream = in) {
            for (int n = stream.read(chunk); n >= 0; n = stream.read(chunk)) {
                for (int i = 0; i < n; i++) {
                    final byte b = chunk[i];
                    if (b == '\n' && afterCr) { // the second half of \r\n
                        afterCr = false;
                        continue;
                    }
                    afterCr = b == '\r';
                    if (b == '\n' || b == '\r') {
                        accept(new String(line, 0, length, StandardCharsets.UTF_8), prefix, target);
                        length = 0;
                        continue;
                    }
                    if (length == line.length) {
                        final int cut = lastCharBoundary(line, length);
                        accept(new String(line, 0, cut, StandardCharsets.UTF_8), prefix, target);
                        System.arraycopy(line, cut, line, 0, length - cut);
                        length -= cut;
                    }
                    line[length++] = b;
                }
            }
            if (length > 0) {
                accept(new String(line, 0, length, StandardCharsets.UTF_8), prefix, target);
            }
        } catch (IOException ignored) {
            // the stream closed under us: the worker is gone
        }
    }

    /** @return whether the line is one every JVM start prints, which says nothing about this worker */
    private static boolean isStartUpNote(String line) {
        if (line.equals(INCUBATOR_WARNING)) {
            return true;
        }
        for (String note : ENVIRONMENT_OPTION_NOTES) {
            if (line.startsWith(note)) {
                return true;
            }
        }
        return false;
    }

    /** @return where to cut {@code bytes[0, length)} so no UTF-8 sequence is split: before an incomplete last one */
    static int lastCharBoundary(byte[] bytes, int length) {
        int i = length - 1;
        while (i > 0 && length - i < 4 && (bytes[i] & 0xC0) == 0x80) {
            i--;
        }
        final int lead = bytes[i] & 0xFF;
        final int needs = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
        return i > 0 && length - i < needs ? i : length;
    }

    private void accept(String line, String prefix, PrintStream target) {
        if (isStartUpNote(line)) {
            return;
        }
        fatalError.accept(line);
        synchronized (tail) {
            if (tail.size() == TAIL) {
                tail.removeFirst();
            }
            tail.addLast(line);
        }
        target.println(prefix + line);
    }

    /** @return the last lines seen, oldest first */
    List<String> tail() {
        synchronized (tail) {
            return new ArrayList<>(tail);
        }
    }

    /** @return the fatal error banner the worker's JVM printed on this stream, if it did */
    JvmFatalError fatalError() {
        return fatalError;
    }

    /**
     * Waits until the stream has ended (the worker exited and its last lines are in), or the time is up.
     *
     * @param millis upper bound of the wait
     */
    void awaitEnd(long millis) {
        Uninterruptibly.join(thread, millis);
    }
}
