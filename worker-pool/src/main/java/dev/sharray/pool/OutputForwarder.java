package dev.sharray.pool;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * Forwards one output stream of a worker to the parent's console, line by line, each line prefixed
 * with the worker's id, and keeps the last lines for crash reports.
 */
final class OutputForwarder {
    /** The JVM prints this for every start with the project's flags; it says nothing about the worker. */
    private static final String INCUBATOR_WARNING = "WARNING: Using incubator modules: jdk.incubator.vector";
    private static final int TAIL = 20;

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
        thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    if (line.equals(INCUBATOR_WARNING)) {
                        continue;
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
            } catch (IOException ignored) {
                // the stream closed under us: the worker is gone
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
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
        try {
            thread.join(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
