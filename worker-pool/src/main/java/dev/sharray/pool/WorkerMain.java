package dev.sharray.pool;

import dev.sharray.reducers.Reducer;
import dev.sharray.reducers.Reducers;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Entry point of a worker JVM, started by {@link ProcessPool}; not for direct use.
 *
 * <p>Arguments: ring file, parent's result doorbell socket, worker id, parent pid. User reducers come from the system property
 * {@value #REDUCERS_PROPERTY} (comma-separated class names with public no-argument constructors).
 * Only the transport and this package load at start; shared arrays (and with them Chronicle) load
 * when a task first carries one.
 */
public final class WorkerMain {
    /** System property naming the user reducer classes to instantiate. */
    public static final String REDUCERS_PROPERTY = "sharray.pool.reducers";
    /** System property: heap arrays in results above this size are shared instead of sent inline. */
    public static final String MAX_BYTES_PROPERTY = "sharray.pool.maxBytes";
    /**
     * System property: bytes of array mappings a worker keeps between tasks without a reference
     * ({@code SharedArrays.retainMappings}); 0 turns it off.
     */
    public static final String RETAIN_BYTES_PROPERTY = "sharray.pool.retainMappingBytes";

    /** System property: how long a worker's shutdown hooks may run once it exits, in milliseconds, before it halts. */
    static final String EXIT_GRACE_PROPERTY = "sharray.pool.exitGraceMillis";
    /** Exit code of a worker halted because its shutdown hooks did not finish. */
    static final int EXIT_HALTED = 75;

    private WorkerMain() {
    }

    /**
     * Runs the worker until the parent says stop or goes away, then exits (threads a task left running do not keep
     * it alive).
     *
     * @param args ring file, parent's result doorbell socket, worker id, parent pid
     * @throws Exception when the ring file cannot be mapped (the parent sees the exit and the stderr lines)
     */
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: WorkerMain <ring file> <doorbell socket> <worker id> <parent pid>");
            System.exit(64);
        }
        if (WorkerLoop.PREWARM) {
            final Thread warm = new Thread(WorkerLoop::prewarm, "sharray-worker-prewarm");
            warm.setDaemon(true);
            warm.start();
        }
        // stdin is the pool's control pipe (the parent's doorbell, and its end-of-file when the parent dies): a task
        // reading System.in would block until the next doorbell and swallow it, or wait behind the watch thread's
        // read. Tasks get an empty System.in, as a worker of a Python pool gets /dev/null.
        final InputStream control = new FileInputStream(FileDescriptor.in);
        System.setIn(InputStream.nullInputStream());
        ParentWatch.start(Long.parseLong(args[3]), Thread.currentThread(), control);
        armExitBackstop();
        final Reducers reducers = reducersFromProperty();
        try (RingFile rings = RingFile.open(Path.of(args[0]));
             DoorbellRinger parentDoorbell = new DoorbellRinger(Path.of(args[1]))) {
            new WorkerLoop(rings, parentDoorbell, reducers, Long.getLong(MAX_BYTES_PROPERTY, 1 << 20),
                Long.getLong(RETAIN_BYTES_PROPERTY, 0)).run();
        }
        // the parent said stop: exit now, through the shutdown hooks, even when a task left a non-daemon thread
        // running (returning from main would wait for it, and the parent would kill this JVM after its grace)
        System.exit(0);
    }

    /**
     * Once this JVM starts to exit (a task called {@code System.exit}, or the parent said stop), its shutdown hooks
     * get {@value #EXIT_GRACE_PROPERTY} milliseconds (default 5000, the parent's own grace at stop) before the JVM
     * halts. A task's hook that never returns would otherwise leave the worker neither alive nor dead: its task never
     * answers, and without a timeout the caller and {@code close()} wait forever.
     */
    private static void armExitBackstop() {
        final long graceMillis = Long.getLong(EXIT_GRACE_PROPERTY, 5_000);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // hooks run concurrently and the JVM waits for all of them: this one only starts the timer and returns
            final Thread halt = new Thread(() -> {
                try {
                    Thread.sleep(graceMillis);
                } catch (InterruptedException ignored) {
                    // halt now
                }
                System.err.println("sharray worker: shutdown hooks still running " + graceMillis + " ms after exit began; halting");
                Runtime.getRuntime().halt(EXIT_HALTED);
            }, "sharray-exit-backstop");
            halt.setDaemon(true);
            halt.start();
        }, "sharray-exit-backstop-arm"));
    }

    private static Reducers reducersFromProperty() throws ReflectiveOperationException {
        final String names = System.getProperty(REDUCERS_PROPERTY, "");
        final List<Reducer<?>> list = new ArrayList<>();
        for (String name : names.split(",")) {
            if (!name.isBlank()) {
                // the builder checked for a public no-argument constructor; its class may still be package-private,
                // which newInstance from this package refuses (the worker would fail to start)
                final java.lang.reflect.Constructor<?> c = Class.forName(name.strip()).getConstructor();
                c.setAccessible(true);
                list.add((Reducer<?>) c.newInstance());
            }
        }
        return Reducers.defaults().with(list.toArray(new Reducer<?>[0]));
    }
}
